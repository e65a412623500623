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
  /* Fair deals (R8.4, docs/fairness.md): this page's seed for the shuffles it takes part in,
     the player's own if he typed one in the settings (static/js/client-seed.js), else a random
     one made once for the page. The forms that start a match carry the sealed commitment they
     showed and an empty "client_seed" (games/templatetags/fair_seal.py), filled here as they go,
     by a plain submit, htmx or its socket extension. */
  var pageSeed = null;
  window.hokmClientSeed = function () {
    try {
      var own = window.localStorage.getItem("hokm-client-seed");
      if (own && /^[\x20-\x7b\x7d\x7e]{0,64}$/.test(own)) {
        return own;
      }
    } catch (error) {
      /* no storage (private mode): the random seed */
    }
    if (pageSeed === null) {
      var bytes = new Uint8Array(16);
      window.crypto.getRandomValues(bytes);
      pageSeed = Array.prototype.map
        .call(bytes, function (b) {
          return (b < 16 ? "0" : "") + b.toString(16);
        })
        .join("");
    }
    return pageSeed;
  };
  document.addEventListener(
    "submit",
    function (event) {
      var fields = event.target.querySelectorAll ? event.target.querySelectorAll("input[data-fair-answer]") : [];
      Array.prototype.forEach.call(fields, function (input) {
        input.value = window.hokmClientSeed();
      });
    },
    true
  );
  ["htmx:configRequest", "htmx:wsConfigSend"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      var parameters = event.detail && event.detail.parameters;
      var elt = event.detail && event.detail.elt;
      if (parameters && elt && elt.querySelector && elt.querySelector("input[data-fair-answer]")) {
        parameters.client_seed = window.hokmClientSeed();
      }
    });
  });

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
