// The console's service worker, served from /sw.js (root scope) by
// dashboard/reach/views_push.py. It shows what dashboard/reach/push.py sends
// ({title, body, url, tag, actions: [{action, title, url}]}) and, on a click,
// opens the notification's link, or the clicked action's own link.
"use strict";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

function notificationOptions(message) {
  const actions = Array.isArray(message.actions) ? message.actions : [];
  const links = {};
  actions.forEach((action) => { links[action.action] = action.url; });
  return {
    body: message.body || "",
    tag: message.tag || undefined,
    icon: "/static/icons/console-192.png",
    badge: "/static/icons/console-192.png",
    actions: actions.map((action) => ({ action: action.action, title: action.title })),
    data: { url: message.url || "/inbox/", links: links },
    requireInteraction: actions.length > 0,
  };
}

// Where a click leads: the clicked action's link, else the notification's,
// and only ever a page of this console or the address it was sent with.
function clickTarget(data, action) {
  const links = (data && data.links) || {};
  const target = (action && links[action]) || (data && data.url) || "/inbox/";
  const url = new URL(target, self.location.origin);
  return url.protocol === "https:" || url.protocol === "http:" ? url.href : new URL("/inbox/", self.location.origin).href;
}

async function openTarget(url) {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((client) => client.url === url && "focus" in client);
  if (open) return open.focus();
  return self.clients.openWindow(url);
}

self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch (error) {
    message = { title: "Workspace Console", body: event.data ? event.data.text() : "" };
  }
  event.waitUntil(self.registration.showNotification(message.title || "Workspace Console", notificationOptions(message)));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openTarget(clickTarget(event.notification.data, event.action)));
});
