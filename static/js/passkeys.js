// Passkeys (dashboard/accounts/views_passkeys.py). A form marked
// data-passkey="create" (register one) or "get" (sign in, confirm a change)
// asks its data-options-url for WebAuthn options (a POST with the form's CSRF
// token and its data-purpose), calls navigator.credentials.create() or get(),
// puts the browser's answer as base64url JSON into the form's hidden
// `credential` field and sends the form as usual. The options come by fetch,
// so the page carries no inline script (CSP). Without passkey support the
// buttons stay hidden and the form's status line says so.
(function () {
  "use strict";
  var gettext = window.gettext || String;
  const forms = document.querySelectorAll("form[data-passkey]");
  if (!forms.length) return;
  const supported = "PublicKeyCredential" in window && !!navigator.credentials;

  function toBytes(text) {
    const padded = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  }

  function toText(buffer) {
    let binary = "";
    new Uint8Array(buffer).forEach((byte) => { binary += String.fromCharCode(byte); });
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  const withIds = (list) => (list || []).map((item) => Object.assign({}, item, { id: toBytes(item.id) }));

  function creationOptions(json) {
    return Object.assign({}, json, {
      challenge: toBytes(json.challenge),
      user: Object.assign({}, json.user, { id: toBytes(json.user.id) }),
      excludeCredentials: withIds(json.excludeCredentials),
    });
  }

  function requestOptions(json) {
    return Object.assign({}, json, {
      challenge: toBytes(json.challenge),
      allowCredentials: withIds(json.allowCredentials),
    });
  }

  // The answer in the JSON shape py_webauthn reads (WebAuthn's own toJSON()).
  function answer(credential) {
    const response = credential.response;
    const json = {
      id: credential.id,
      rawId: toText(credential.rawId),
      type: credential.type,
      clientExtensionResults: credential.getClientExtensionResults ? credential.getClientExtensionResults() : {},
      response: { clientDataJSON: toText(response.clientDataJSON) },
    };
    if (credential.authenticatorAttachment) json.authenticatorAttachment = credential.authenticatorAttachment;
    if (response.attestationObject) {
      json.response.attestationObject = toText(response.attestationObject);
      if (response.getTransports) json.response.transports = response.getTransports();
    } else {
      json.response.authenticatorData = toText(response.authenticatorData);
      json.response.signature = toText(response.signature);
      if (response.userHandle) json.response.userHandle = toText(response.userHandle);
    }
    return JSON.stringify(json);
  }

  function refusal(error) {
    if (error && error.name === "NotAllowedError") {
      return gettext("The passkey request was cancelled or timed out: nothing changed. Try again.");
    }
    if (error && error.name === "InvalidStateError") {
      return gettext("This device already holds a passkey for your account.");
    }
    return (error && error.message) || gettext("The passkey request did not work. Try again.");
  }

  forms.forEach((form) => {
    const state = form.querySelector("[data-passkey-state]");
    const button = form.querySelector("button[type=submit]");
    const say = (words) => { if (state) state.textContent = words; };
    if (!supported) {
      say(gettext("This browser cannot use passkeys."));
      return;
    }
    button.hidden = false;

    form.addEventListener("submit", async (event) => {
      if (form.elements.credential.value) return;  // the answer is in: the form goes
      event.preventDefault();
      button.disabled = true;
      say(gettext("Waiting for your passkey…"));
      try {
        const body = new URLSearchParams({ purpose: form.dataset.purpose || "" });
        const token = form.elements.csrfmiddlewaretoken.value;
        const reply = await fetch(form.dataset.optionsUrl, {
          method: "POST",
          body,
          credentials: "same-origin",
          headers: { "X-CSRFToken": token, Accept: "application/json" },
        });
        const json = await reply.json();
        if (!reply.ok) throw new Error(json.error || gettext("The console refused the passkey request."));
        const credential = form.dataset.passkey === "create"
          ? await navigator.credentials.create({ publicKey: creationOptions(json) })
          : await navigator.credentials.get({ publicKey: requestOptions(json) });
        form.elements.credential.value = answer(credential);
        say(gettext("Checking…"));
        form.submit();
      } catch (error) {
        say(refusal(error));
        button.disabled = false;
      }
    });
  });
})();
