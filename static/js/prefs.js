/* The player's looks and sounds (accounts.preferences): theme, face, back, sound, volume, motion
   and notify live as data-* attributes of <html>, which the stylesheets and the other scripts
   read. window.hokmPrefs.set(name, value) changes one at once on this page, stores it on the
   server (POST /account/preferences/) and tells the page with a "hokm:prefs" event on document,
   detail {name, value}.

   Every element with data-pref="<name>" is wired on its own: a <select>, a set of radio buttons,
   a checkbox (on/off) or a range (volume). It shows the value in force and sets it when changed,
   on any page, including ones htmx swaps in later. */
(function () {
  "use strict";

  const root = document.documentElement;
  const SWITCHES = ["sound", "motion", "notify"];
  const NAMES = ["theme", "face", "back", "volume"].concat(SWITCHES);
  function known(name) {
    return NAMES.indexOf(name) !== -1;
  }

  function normalise(name, value) {
    if (SWITCHES.indexOf(name) !== -1) {
      if (value === true || value === "on") {
        return "on";
      }
      if (value === false || value === "off") {
        return "off";
      }
      return null;
    }
    if (name === "volume") {
      const number = Math.round(Number(value));
      return Number.isFinite(number) && number >= 0 && number <= 100 ? String(number) : null;
    }
    const allowed = choices()[name];
    return allowed && allowed.indexOf(value) !== -1 ? value : null;
  }

  let knownChoices = null;

  function choices() {
    if (knownChoices === null) {
      const data = document.getElementById("hokm-prefs-choices");
      try {
        knownChoices = data ? JSON.parse(data.textContent) || {} : {};
      } catch (error) {
        knownChoices = {};
      }
    }
    return knownChoices;
  }

  function csrfToken() {
    const field = document.querySelector("input[name=csrfmiddlewaretoken]");
    if (field) {
      return field.value;
    }
    const headers = document.body && document.body.getAttribute("hx-headers");
    if (headers) {
      try {
        return JSON.parse(headers)["X-CSRFToken"] || "";
      } catch (error) {
        return "";
      }
    }
    return "";
  }

  function endpoint() {
    const meta = document.querySelector("meta[name=hokm-prefs-url]");
    return meta ? meta.content : "/account/preferences/";
  }

  // One request at a time, with every change made meanwhile: a visitor's choices live in his
  // session, and two requests at once would each write back the session they read, losing one.
  // A volume slider sends many values while it is dragged: it waits for the last one.
  const SAVE_DELAY_MS = 350;
  let waiting = {};
  let timer = null;
  let sending = false;

  function flush() {
    timer = null;
    if (sending || Object.keys(waiting).length === 0) {
      return;
    }
    const body = new URLSearchParams(waiting);
    waiting = {};
    sending = true;
    fetch(endpoint(), {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken(), "X-Requested-With": "fetch" },
      body: body,
    })
      .catch(function () {
        // Offline: the choice still holds on this page, and the next one made is stored.
      })
      .finally(function () {
        sending = false;
        if (timer === null) {
          flush();
        }
      });
  }

  function save(name, value) {
    waiting[name] = value;
    clearTimeout(timer);
    timer = setTimeout(flush, name === "volume" ? SAVE_DELAY_MS : 0);
  }

  function get(name) {
    return root.dataset[name];
  }

  function reflect(element, name, value) {
    if (element.type === "checkbox") {
      element.checked = value === "on";
    } else if (element.type === "radio") {
      element.checked = element.value === value;
    } else if (element.value !== value) {
      element.value = value;
    }
  }

  function reflectAll(name, value, except) {
    document.querySelectorAll('[data-pref="' + name + '"]').forEach(function (element) {
      if (element !== except) {
        reflect(element, name, value);
      }
    });
  }

  function apply(name, value, source) {
    root.dataset[name] = value;
    reflectAll(name, value, source);
    document.dispatchEvent(new CustomEvent("hokm:prefs", { detail: { name: name, value: value } }));
  }

  function set(name, value, source) {
    const shown = known(name) ? normalise(name, value) : null;
    if (shown === null) {
      return false;
    }
    apply(name, shown, source);
    save(name, shown);
    return true;
  }

  function valueOf(element) {
    if (element.type === "checkbox") {
      return element.checked ? "on" : "off";
    }
    return element.value;
  }

  function onChange(event) {
    const element = event.target;
    const name = element && element.dataset ? element.dataset.pref : null;
    if (!name || !known(name)) {
      return;
    }
    if (element.type === "radio" && !element.checked) {
      return;
    }
    // A slider says "input" while dragged and "change" when let go: one change, not two.
    if (normalise(name, valueOf(element)) === get(name)) {
      return;
    }
    set(name, valueOf(element), element);
  }

  function wire(scope) {
    scope.querySelectorAll("[data-pref]").forEach(function (element) {
      const name = element.dataset.pref;
      if (known(name) && get(name) !== undefined) {
        reflect(element, name, get(name));
      }
    });
  }

  // Delegated, so that controls swapped in later work too; "input" moves a slider's sound at once.
  document.addEventListener("change", onChange);
  document.addEventListener("input", function (event) {
    if (event.target && event.target.type === "range") {
      onChange(event);
    }
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    wire(event.target);
  });

  window.hokmPrefs = {
    get: get,
    set: function (name, value) {
      return set(name, value, null);
    },
  };

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () {
      wire(document);
    });
  } else {
    wire(document);
  }
})();
