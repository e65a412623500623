/* On every page (templates/_head_app.html): the service worker that lets the site be installed
   and keeps its static files at hand (static/js/sw.js, served at /sw.js: docs/app.md), and the
   browser's permission for turn notifications, asked only when the player himself switches them
   on (any <input data-pref="notify">: the settings page's, the table's). */
(function () {
  "use strict";

  var script = document.currentScript;
  var workerUrl = script && script.dataset.serviceWorker;

  if (workerUrl && "serviceWorker" in navigator && window.isSecureContext) {
    window.addEventListener("load", function () {
      navigator.serviceWorker.register(workerUrl, { scope: "/" }).catch(function () {
        /* no worker (private mode, blocked): the site works the same without it */
      });
    });
  }

  function notifyOff(input) {
    input.checked = false;
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  document.addEventListener("change", function (event) {
    var input = event.target;
    if (!input.dataset || input.dataset.pref !== "notify" || !input.checked) {
      return;
    }
    if (!("Notification" in window)) {
      notifyOff(input);
      return;
    }
    if (window.Notification.permission === "granted") {
      return;
    }
    if (window.Notification.permission === "denied") {
      notifyOff(input); // only the browser's own site settings can lift a refusal
      return;
    }
    window.Notification.requestPermission().then(function (answer) {
      if (answer !== "granted") {
        notifyOff(input);
      }
    });
  });
})();
