/* On every page (templates/_head_app.html): the service worker that lets the site be installed
   and keeps its static files at hand (static/js/sw.js, served at /sw.js: docs/app.md), and the
   browser's permission for turn notifications, asked only when the player himself switches them
   on (any <input data-pref="notify">: the settings page's, the table's). */
(function () {
  "use strict";

  var script = document.currentScript;

  /* The reader's digits, as the server writes them (lib/numerals.py): Persian and Urdu pages show
     ۰–۹; the other languages 0–9. For the numbers the page's scripts write (clocks, counts). */
  var DIGITS = { fa: "۰۱۲۳۴۵۶۷۸۹", ur: "۰۱۲۳۴۵۶۷۸۹" };
  var digits = DIGITS[(document.documentElement.lang || "en").split("-")[0]];
  window.hokmDigits = function (value) {
    var text = String(value);
    return digits ? text.replace(/[0-9]/g, function (d) { return digits.charAt(Number(d)); }) : text;
  };

  /* The reader's time zone, for the times pages show (hokm_site/timezones.py). Zone names are
     letters, digits, "_", "+", "-" and "/": cookie-safe as they are. */
  try {
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone && /^[A-Za-z0-9_+\/-]{1,64}$/.test(zone) && document.cookie.indexOf("tz=" + zone) === -1) {
      document.cookie = "tz=" + zone + "; path=/; max-age=31536000; samesite=lax";
    }
  } catch (error) {
    /* no Intl time zone: the server guesses from the language */
  }
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
