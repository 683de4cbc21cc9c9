// The Notifications page's "Push to this device" (dashboard/reach/views_push.py):
// registers the service worker at the site's root, asks the browser's
// permission and a PushSubscription, then posts the page's ordinary form with
// it. Turning off this very device also ends the browser's own subscription.
(function () {
  "use strict";
  var gettext = window.gettext || String;
  const form = document.getElementById("push-subscribe");
  if (!form) return;
  const state = document.getElementById("push-state");
  const button = form.querySelector("button[type=submit]");
  const say = (words) => { state.textContent = words; };

  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    say(gettext("This browser cannot receive push notifications."));
    return;
  }
  button.hidden = false;

  function keyBytes(base64url) {
    const padded = (base64url + "===".slice((base64url.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  }

  async function current() {
    const registration = await navigator.serviceWorker.getRegistration("/");
    return registration ? registration.pushManager.getSubscription() : null;
  }

  current().then((subscription) => {
    if (!subscription) return;
    const mine = Array.from(document.querySelectorAll("[data-endpoint]"))
      .find((item) => item.dataset.endpoint === subscription.endpoint);
    if (mine) {
      mine.append(" (this device)");
      button.textContent = gettext("Subscribe this device again");
    }
  }).catch(() => {});

  form.addEventListener("submit", async (event) => {
    if (form.elements.endpoint.value) return;  // filled in: the form goes
    event.preventDefault();
    button.disabled = true;
    try {
      if ((await Notification.requestPermission()) !== "granted") {
        say(gettext("The browser is not allowed to show notifications: allow them in its site settings, then try again."));
        return;
      }
      const registration = await navigator.serviceWorker.register(form.dataset.worker, { scope: "/" });
      await navigator.serviceWorker.ready;
      const subscription = await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: keyBytes(form.dataset.vapidPublicKey),
      });
      const json = subscription.toJSON();
      form.elements.endpoint.value = json.endpoint;
      form.elements.p256dh.value = json.keys.p256dh;
      form.elements.auth.value = json.keys.auth;
      form.requestSubmit(button);
    } catch (error) {
      say(gettext("This browser could not subscribe (%s). Try again, or use another browser.").replace("%s", error.name));
    } finally {
      button.disabled = false;
    }
  });

  document.querySelectorAll("[data-push-unsubscribe]").forEach((unsubscribe) => {
    unsubscribe.addEventListener("submit", () => {
      const endpoint = unsubscribe.closest("[data-endpoint]").dataset.endpoint;
      current().then((subscription) => {
        if (subscription && subscription.endpoint === endpoint) subscription.unsubscribe();
      }).catch(() => {});
    });
  });
})();
