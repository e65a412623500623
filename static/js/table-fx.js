/* The live table's sounds, motion and "your turn" signals (templates/games/match.html).

   The server sends the whole table again after every change (static/js/match.js says how), so
   nothing here is told that "a card was played": it compares the table just before a message is
   swapped in (htmx:wsBeforeMessage) with the table after it (htmx:wsAfterMessage) and reacts to
   what changed:
   - a card new in the trick: a snap, and the card travels there from the hand that played it
     (FLIP: measured where it was, drawn where it is, moved back and let go; transform only);
   - a trick finished: a whoosh; when it leaves the middle, a copy of it sweeps to its winner's
     seat in a layer of its own that takes no clicks, so the real table can be used at once;
   - a new hand's cards: dealt in one by one; the end of a hand: won or lost; Kot or court: a
     fanfare and a burst of suits over the felt; a chat line from someone else: a blip;
   - his turn: a chime, the tab's title and icon, and a notification when the tab is hidden;
     the last five seconds of his clock: a tick a second.
   Motion never delays a move (the animations run over a table that already takes clicks) and is
   off with <html data-motion="off"> or prefers-reduced-motion; sounds (static/js/sounds.js) are
   off with data-sound="off". Preferences come from static/js/prefs.js when it is there, from the
   <html> attributes and this page's own switches when it is not. */
(function () {
  "use strict";

  var root = document.documentElement;
  var reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  var FLIGHT_MS = 260;
  var SWEEP_MS = 420;
  var TRICK_READ_MS = 900; // a finished trick stays in sight at least this long, copy included
  var DEAL_STEP_MS = 35;
  var MAX_VERSION_JUMP = 3; // more changes at once (a reconnect): no replay of all of them

  function config() {
    return document.querySelector("[data-fx]") || document.createElement("div");
  }

  function motionOn() {
    return root.dataset.motion !== "off" && !reducedMotion.matches;
  }

  function sound(name, delay) {
    if (window.hokmSounds) {
      window.hokmSounds.play(name, delay);
    }
  }

  /* ---- What the table shows ---- */

  function center(rect) {
    return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2, width: rect.width };
  }

  function visible(rect) {
    return rect.width > 0 && rect.height > 0;
  }

  function seatAnchor(table, seat) {
    var place = table.querySelector('.seat[data-seat="' + seat + '"]');
    if (!place) {
      return null;
    }
    var target = place.querySelector(".backs") || place.querySelector(".seat__plate") || place;
    var rect = target.getBoundingClientRect();
    return visible(rect) ? center(rect) : null;
  }

  function snapshot() {
    var table = document.getElementById("table");
    if (!table) {
      return null;
    }
    var trick = table.querySelector(".trick");
    var banner = table.querySelector(".banner");
    var lastTrick = table.querySelector(".last-trick[data-winner]");
    var state = {
      table: table,
      match: table.dataset.match,
      version: parseInt(table.dataset.version, 10) || 0,
      phase: table.dataset.phase,
      yourTurn: table.classList.contains("is-your-turn"),
      trick: [],
      trickDone: !!(trick && trick.classList.contains("trick--done")),
      trickWinner: trick ? trick.dataset.winner : undefined,
      lastTrickWinner: lastTrick ? lastTrick.dataset.winner : undefined,
      handCards: {},
      banner: banner
        ? {
            result: banner.dataset.handResult,
            kot: banner.hasAttribute("data-kot"),
            match: banner.dataset.matchResult,
            lastWinner: banner.dataset.lastTrickWinner,
          }
        : null,
    };
    if (trick) {
      trick.querySelectorAll(".trick__card").forEach(function (wrapper) {
        var card = wrapper.querySelector(".card[data-card]");
        if (card) {
          state.trick.push({ card: card.dataset.card, seat: wrapper.dataset.seat, node: card });
        }
      });
    }
    table.querySelectorAll(".hand .card[data-card]").forEach(function (card) {
      state.handCards[card.dataset.card] = card;
    });
    return state;
  }

  /* Screen places of the table about to be replaced, taken while its nodes are still in the
     page (htmx:wsBeforeMessage): where a card flies from, where a sweep starts. */
  function measure(state) {
    state.trick.forEach(function (played) {
      var rect = played.node.getBoundingClientRect();
      played.box = visible(rect) ? center(rect) : null;
      played.size = { width: played.node.offsetWidth, height: played.node.offsetHeight };
      played.rotate = window.getComputedStyle(played.node.parentElement).rotate;
    });
    state.handBoxes = {};
    Object.keys(state.handCards).forEach(function (card) {
      var rect = state.handCards[card].getBoundingClientRect();
      if (visible(rect)) {
        state.handBoxes[card] = center(rect);
      }
    });
  }

  /* ---- Motion ---- */

  var layer = null;

  function fxLayer() {
    if (!layer || !document.body.contains(layer)) {
      layer = document.createElement("div");
      layer.className = "fx-layer";
      layer.setAttribute("aria-hidden", "true");
      document.body.appendChild(layer);
    }
    return layer;
  }

  function dropWhenDone(animation, element) {
    animation.finished.then(
      function () {
        element.remove();
      },
      function () {
        element.remove();
      }
    );
  }

  /* Draws `element` at `from` (a centre and a width on screen) and lets it go to its place. */
  function fly(element, from) {
    var rect = element.getBoundingClientRect();
    if (!visible(rect)) {
      return;
    }
    var to = center(rect);
    var scale = Math.max(0.3, Math.min(1.6, from.width / to.width || 1));
    element.animate(
      [
        { translate: from.x - to.x + "px " + (from.y - to.y) + "px", scale: String(scale) },
        { translate: "0px 0px", scale: "1" },
      ],
      { duration: FLIGHT_MS, easing: "cubic-bezier(0.2, 0.7, 0.3, 1)" }
    );
  }

  /* A card new in the trick comes from where the player held it: his own hand card's place,
     or another player's seat. The stylesheet's own entry animation gives way to it. */
  function flyToTrick(before, after, played) {
    var wrapper = played.node.parentElement;
    var from = before.handBoxes[played.card] || seatAnchor(after.table, played.seat);
    if (!from || !wrapper) {
      return;
    }
    wrapper.getAnimations().forEach(function (animation) {
      if (window.CSSAnimation && animation instanceof window.CSSAnimation) {
        animation.cancel();
      }
    });
    fly(wrapper, from);
  }

  /* The finished trick has left the middle: a copy of it, where it lay, sweeps to the winner. */
  function sweep(before, winner, shownSince) {
    var target = seatAnchor(document.getElementById("table"), winner);
    var cards = before.trick.filter(function (played) {
      return played.box;
    });
    if (!target || !cards.length) {
      return;
    }
    var hold = Math.max(0, Math.min(TRICK_READ_MS, TRICK_READ_MS - (Date.now() - shownSince)));
    var group = document.createElement("div");
    group.className = "fx-sweep";
    fxLayer().appendChild(group);
    var last = null;
    cards.forEach(function (played, i) {
      var copy = played.node.cloneNode(true);
      copy.removeAttribute("role");
      copy.removeAttribute("aria-label");
      copy.classList.add("fx-sweep__card");
      if (played.seat === String(winner)) {
        copy.classList.add("is-winner");
      }
      copy.style.setProperty("--card-w", played.size.width + "px");
      copy.style.left = played.box.x - played.size.width / 2 + "px";
      copy.style.top = played.box.y - played.size.height / 2 + "px";
      if (played.rotate && played.rotate !== "none") {
        copy.style.rotate = played.rotate;
      }
      group.appendChild(copy);
      last = copy.animate(
        [
          { translate: "0px 0px", scale: "1", opacity: 1 },
          {
            translate: target.x - played.box.x + "px " + (target.y - played.box.y) + "px",
            scale: "0.35",
            opacity: 0,
          },
        ],
        {
          duration: SWEEP_MS,
          delay: hold + i * 30,
          easing: "cubic-bezier(0.5, 0, 0.8, 0.6)",
          fill: "both",
        }
      );
    });
    dropWhenDone(last, group);
  }

  /* A new hand's cards come down from the middle of the table one by one, each straight to its
     place: up and down only, so that across the hand keeps its order at every moment. */
  function deal(before, after) {
    var middle = after.table.querySelector(".center") || after.table.querySelector(".felt");
    if (!middle) {
      return;
    }
    var fromY = center(middle.getBoundingClientRect()).y;
    var fresh = Object.keys(after.handCards)
      .filter(function (card) {
        return !before.handCards[card];
      })
      .map(function (card) {
        return after.handCards[card].closest(".hand__slot") || after.handCards[card];
      });
    fresh.sort(function (a, b) {
      return a.getBoundingClientRect().left - b.getBoundingClientRect().left;
    });
    fresh.forEach(function (slot, i) {
      var rect = slot.getBoundingClientRect();
      if (!visible(rect)) {
        return;
      }
      slot.animate(
        [
          { translate: "0px " + (fromY - center(rect).y) + "px", opacity: 0 },
          { translate: "0px 0px", opacity: 1 },
        ],
        {
          duration: 300,
          delay: i * DEAL_STEP_MS,
          easing: "cubic-bezier(0.2, 0.7, 0.3, 1)",
          fill: "backwards",
        }
      );
    });
  }

  var SUITS = ["♠", "♥", "♦", "♣"];

  /* Kot, court: a short burst of suits from the middle of the felt. */
  function celebrate() {
    var felt = document.querySelector("#table .felt") || document.getElementById("table");
    if (!felt) {
      return;
    }
    var box = felt.getBoundingClientRect();
    var origin = center(box);
    var reach = Math.max(120, Math.min(box.width, box.height) * 0.55);
    var burst = document.createElement("div");
    burst.className = "fx-burst";
    fxLayer().appendChild(burst);
    var last = null;
    for (var i = 0; i < 28; i += 1) {
      var piece = document.createElement("span");
      var suit = SUITS[i % 4];
      piece.className = "fx-burst__piece" + (i % 4 === 1 || i % 4 === 2 ? " is-red" : "");
      piece.textContent = suit;
      piece.style.left = origin.x + "px";
      piece.style.top = origin.y + "px";
      burst.appendChild(piece);
      var angle = (i / 28) * 2 * Math.PI + Math.random() * 0.4;
      var distance = reach * (0.55 + Math.random() * 0.45);
      var x = Math.cos(angle) * distance;
      var y = Math.sin(angle) * distance;
      last = piece.animate(
        [
          { translate: "0px 0px", scale: "0.3", rotate: "0deg", opacity: 1 },
          { translate: x * 0.8 + "px " + y * 0.8 + "px", scale: "1.1", opacity: 1, offset: 0.6 },
          {
            translate: x + "px " + (y + reach * 0.25) + "px",
            scale: "0.9",
            rotate: (Math.random() * 2 - 1) * 240 + "deg",
            opacity: 0,
          },
        ],
        {
          duration: 1100 + Math.random() * 300,
          easing: "cubic-bezier(0.1, 0.6, 0.4, 1)",
          fill: "both",
        }
      );
    }
    dropWhenDone(last, burst);
  }

  /* ---- "Your turn", even elsewhere ---- */

  var baseTitle = document.title;
  var icons = [];
  var notice = null;

  function turnSignals(yourTurn) {
    var options = config().dataset;
    var prefix = "● " + (options.turnTitle || "") + " · ";
    document.title = yourTurn && options.turnTitle ? prefix + baseTitle : baseTitle;
    if (!icons.length) {
      var links = document.querySelectorAll('link[rel~="icon"]');
      icons = Array.prototype.map.call(links, function (link) {
        return { link: link, href: link.href, type: link.type };
      });
    }
    var turnIcon = yourTurn && options.turnIcon;
    icons.forEach(function (icon) {
      var href = turnIcon ? new URL(options.turnIcon, document.baseURI).href : icon.href;
      if (icon.link.href !== href) {
        // Only on a change: each new href has the browser fetch the icon again.
        icon.link.href = href;
        icon.link.type = turnIcon ? "image/svg+xml" : icon.type;
      }
    });
    if (!yourTurn || !document.hidden) {
      closeNotice();
    }
  }

  function closeNotice() {
    if (notice) {
      notice.close();
      notice = null;
    }
  }

  function notify() {
    var options = config().dataset;
    if (
      root.dataset.notify !== "on" ||
      !document.hidden ||
      !("Notification" in window) ||
      window.Notification.permission !== "granted"
    ) {
      return;
    }
    try {
      closeNotice();
      notice = new window.Notification(options.notifyTitle || baseTitle, {
        body: options.notifyBody || "",
        icon: options.notifyIcon || undefined,
        tag: "hokm-turn-" + (document.getElementById("table") || root).dataset.match,
        lang: root.lang,
        dir: root.dir,
      });
      notice.onclick = function () {
        window.focus();
        closeNotice();
      };
    } catch (error) {
      notice = null; // Android Chrome allows notifications from a service worker only
    }
  }

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) {
      closeNotice();
    }
  });

  /* The last seconds of his own clock: one tick for each of 5, 4, 3, 2, 1 (match.js counts). */
  var lastTick = null;

  window.setInterval(function () {
    var seconds = document.querySelector("#table [data-clock].is-yours [data-clock-seconds]");
    var left = seconds ? parseInt(seconds.textContent, 10) : NaN;
    if (isNaN(left) || left > 5 || left < 1) {
      lastTick = null;
      return;
    }
    if (left !== lastTick) {
      lastTick = left;
      sound("tick");
    }
  }, 200);

  /* ---- Chat ---- */

  var chatSeen = {};

  function newChatLines() {
    var fresh = 0;
    document.querySelectorAll("#chat-log > [id]").forEach(function (line) {
      if (!chatSeen[line.id]) {
        chatSeen[line.id] = true;
        if (!line.classList.contains("is-own")) {
          fresh += 1;
        }
      }
    });
    return fresh;
  }

  /* ---- What changed ---- */

  var before = null;
  var trickShownSince = Date.now();

  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    if (event.defaultPrevented) {
      return; // held back (match.js): no swap now, the same message comes again later
    }
    before = snapshot();
    if (before && motionOn()) {
      measure(before);
    }
  });

  document.addEventListener("htmx:wsAfterMessage", function () {
    var old = before;
    before = null;
    if (newChatLines()) {
      sound("chat");
    }
    var now = snapshot();
    if (!now) {
      return;
    }
    turnSignals(now.yourTurn);
    if (!old || old.match !== now.match || old.version === now.version) {
      return; // the same table sent again (someone came or went): nothing happened
    }
    try {
      var moving = !!old.handBoxes && motionOn() && now.version - old.version <= MAX_VERSION_JUMP;
      react(old, now, moving);
    } catch (error) {
      // Effects are extras: whatever went wrong, the table itself is already in place.
      if (window.console) {
        window.console.error(error);
      }
    }
  });

  function react(old, now, moving) {
    var inTrick = {};
    old.trick.forEach(function (played) {
      inTrick[played.card] = true;
    });
    var arrived = now.trick.filter(function (played) {
      return !inTrick[played.card];
    });
    var handEnded = !old.banner && now.banner;
    var lastCard = handEnded && old.phase === "play" && !old.trickDone;
    var cue = 0; // seconds: sounds of one change follow each other instead of piling up
    if (arrived.length || lastCard) {
      sound("card");
      cue = 0.12;
    }
    var trickTaken = now.trickDone && (!old.trickDone || arrived.length > 0);
    if (trickTaken) {
      trickShownSince = Date.now();
      sound("trick", cue);
      cue += 0.3;
    }
    if (handEnded) {
      var result = now.banner.kot ? "fanfare" : now.banner.match || now.banner.result;
      if (result === "fanfare" || result === "won" || result === "lost") {
        sound(result, cue);
      }
    } else if (now.yourTurn && !old.yourTurn) {
      sound("turn", cue);
    }
    if (now.yourTurn && !old.yourTurn) {
      notify();
    }
    if (!moving) {
      return;
    }
    arrived.forEach(function (played) {
      flyToTrick(old, now, played);
    });
    var trickLeft = old.trick.length && !now.trick.some(function (played) {
      return played.card === old.trick[0].card;
    });
    if (trickLeft) {
      // A trick seen unfinished was completed by a card this page never showed (the last of
      // the hand, or changes sent together): its winner is the last trick's.
      var winner = old.trickDone
        ? old.trickWinner
        : now.banner
          ? now.banner.lastWinner
          : now.lastTrickWinner;
      // Over the banner of a hand's end the trick goes at once: the banner is the news.
      var since = old.trickDone && !handEnded ? trickShownSince : Date.now() - TRICK_READ_MS * 0.75;
      if (winner !== undefined) {
        sweep(old, winner, since);
      }
    }
    var dealt = Object.keys(now.handCards).filter(function (card) {
      return !old.handCards[card];
    });
    if (dealt.length >= 3) {
      deal(old, now);
    }
    if (handEnded && now.banner.kot) {
      celebrate();
    }
  }

  /* ---- The table's own switches, when static/js/prefs.js is not there to wire them ---- */

  var PREF_DEFAULTS = { sound: "on", volume: "70", motion: "on", notify: "off" };

  function prefGet(name) {
    var value = window.hokmPrefs ? window.hokmPrefs.get(name) : root.dataset[name];
    return value === undefined || value === null ? PREF_DEFAULTS[name] : value;
  }

  function prefSet(name, value) {
    root.dataset[name] = value;
    try {
      window.localStorage.setItem("hokm.pref." + name, value);
    } catch (error) {
      /* storage refused: the choice lasts for this page */
    }
    document.dispatchEvent(new CustomEvent("hokm:prefs", { detail: { name: name, value: value } }));
  }

  function showPrefs() {
    document.querySelectorAll("[data-fx] [data-pref]").forEach(function (input) {
      var value = prefGet(input.dataset.pref);
      if (input.type === "checkbox") {
        input.checked = value === "on";
      } else {
        input.value = value;
      }
    });
  }

  if (!window.hokmPrefs) {
    Object.keys(PREF_DEFAULTS).forEach(function (name) {
      if (root.dataset[name] === undefined) {
        var saved = null;
        try {
          saved = window.localStorage.getItem("hokm.pref." + name);
        } catch (error) {
          saved = null;
        }
        root.dataset[name] = saved || PREF_DEFAULTS[name];
      }
    });
    ["change", "input"].forEach(function (type) {
      document.addEventListener(type, function (event) {
        var input = event.target;
        if (!input.closest || !input.closest("[data-fx]") || !input.dataset.pref) {
          return;
        }
        if (input.type === "checkbox") {
          if (type === "change") {
            prefSet(input.dataset.pref, input.checked ? "on" : "off");
          }
        } else {
          prefSet(input.dataset.pref, input.value);
        }
      });
    });
  }
  document.addEventListener("hokm:prefs", showPrefs);

  /* Switching sound on, or letting go of the volume, is a gesture: a sound then lets the
     player hear what he chose (once the preference is in force, hence the zero timer). */
  document.addEventListener("change", function (event) {
    var input = event.target;
    var name = input.dataset ? input.dataset.pref : null;
    if (window.hokmSounds && ((name === "sound" && input.checked) || name === "volume")) {
      window.setTimeout(function () {
        window.hokmSounds.unlock();
        sound("turn");
      }, 0);
    }
  });

  /* The small menu of the table's switches closes as a menu does: a click elsewhere, Escape. */
  function closeMenus(except) {
    document.querySelectorAll(".fx-menu[open]").forEach(function (menu) {
      if (menu !== except) {
        menu.open = false;
      }
    });
  }

  document.addEventListener("click", function (event) {
    closeMenus(event.target.closest ? event.target.closest(".fx-menu") : null);
  });
  document.addEventListener("keydown", function (event) {
    var menu = document.querySelector(".fx-menu[open]");
    if (event.key === "Escape" && menu) {
      closeMenus(null);
      menu.querySelector("summary").focus();
    }
  });

  showPrefs();
  newChatLines();
  var first = snapshot();
  turnSignals(!!(first && first.yourTurn));
})();
