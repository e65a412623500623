/* "Verify this deal" on the replay (templates/games/replay.html; R8.4, RECORD.md "Fair deals").

   Each finished hand of a match dealt fairly carries in #replay-data its public block (fair:
   commit, server_seed, client_seeds) and what its deal must reproduce besides each seat's cards
   (dealt: the Hakem's or caller's first five; hokm2-draw's dealer's five
   and stock), built by games/history/replay.py. A hand not over has neither: its server seed is
   still secret. The button recomputes the deal in the browser exactly as scripts/verify_deal.py
   does, with the Web Crypto API (which needs a secure context: https, or localhost):

   - the server seed is 64 lowercase hex characters, its SHA-256 is the commitment published
     before the deal, and there is one client seed per seat, 0 to 64 characters from 0x20 to
     0x7E but "|";
   - the random stream is HMAC-SHA256(key = the 32 seed bytes, "hokm-deal/1|deal|INDEX|SEED0|
     ...|SEEDn-1|COUNTER") for COUNTER = 0, 1, ..., read as 32-bit big-endian numbers; a number
     below m skips those at or over 2^32 - 2^32 mod m; Fisher-Yates from the end shuffles the
     canonical deck (S, H, D, C, each 2 to A; no 2C in hokm3);
   - the deck is dealt from its top in the variant's batches from the Hakem (Court Piece: the
     caller), and compared: the first five as a set, each seat's cards as a set (hokm2-draw: the
     dealer's five as a set and the stock in order), hokm2's unseen cards in order, and under
     blind hidden trump the indicator, card k of the caller's first five, k drawn below 5 next.

   The replay (static/js/replay.js) keeps the position shown in the root's data-position
   ("h3t5c2": hand 3); this script follows it to offer the check of the hand shown. Its
   sentences come translated in data.text.verify; the verdict goes to an aria-live region.
*/
(function () {
  "use strict";

  const DECK = [];
  "SHDC".split("").forEach(function (suit) {
    "23456789TJQKA".split("").forEach(function (rank) {
      DECK.push(rank + suit);
    });
  });

  /* [seat after the Hakem or caller, cards], in the order dealt. */
  const FIVES = [
    [0, 5],
    [1, 5],
    [2, 5],
    [3, 5],
  ];

  function rounds(count, seats) {
    const out = [];
    for (let round = 0; round < count; round += 1) {
      for (let seat = 0; seat < seats; seat += 1) {
        out.push([seat, 4]);
      }
    }
    return out;
  }

  const ORDER = {
    hokm4: FIVES.concat(rounds(2, 4)),
    "court-piece": FIVES.concat(rounds(2, 4)),
    hokm3: FIVES.slice(0, 3).concat(rounds(3, 3)),
    hokm2: [
      [0, 5],
      [1, 5],
      [0, 4],
      [1, 4],
      [0, 4],
      [1, 4],
    ], // the rest is "unseen"
    "hokm2-draw": [
      [0, 5],
      [1, 5],
    ], // the rest is the "stock"
  };

  const HEX = /^[0-9a-f]{64}$/;
  const CLIENT_SEED = /^[\x20-\x7b\x7d\x7e]{0,64}$/; // 0x20 to 0x7E but "|" (0x7C)
  const TWO_32 = 4294967296;

  function bytesOf(hex) {
    const out = new Uint8Array(hex.length / 2);
    for (let i = 0; i < out.length; i += 1) {
      out[i] = parseInt(hex.substr(i * 2, 2), 16);
    }
    return out;
  }

  function hexOf(buffer) {
    return Array.from(new Uint8Array(buffer), function (byte) {
      return byte.toString(16).padStart(2, "0");
    }).join("");
  }

  /* The random stream: HMAC-SHA256 blocks read as 32-bit big-endian numbers. */
  function stream(key, purpose, index, seeds) {
    const parts = ["hokm-deal/1", purpose, String(index)].concat(seeds);
    const encoder = new TextEncoder();
    let counter = 0;
    let numbers = [];
    return async function next() {
      if (!numbers.length) {
        const message = encoder.encode(parts.concat([String(counter)]).join("|"));
        counter += 1;
        const block = new DataView(await crypto.subtle.sign("HMAC", key, message));
        numbers = [];
        for (let i = 0; i < 32; i += 4) {
          numbers.push(block.getUint32(i, false));
        }
      }
      return numbers.shift();
    };
  }

  /* 0 to m-1, skipping the few numbers that would favour some results. */
  async function below(next, m) {
    const limit = TWO_32 - (TWO_32 % m);
    for (;;) {
      const u = await next();
      if (u < limit) {
        return u % m;
      }
    }
  }

  async function shuffle(deck, next) {
    // Fisher-Yates, from the end.
    for (let i = deck.length - 1; i > 0; i -= 1) {
      const j = await below(next, i + 1);
      const card = deck[i];
      deck[i] = deck[j];
      deck[j] = card;
    }
    return deck;
  }

  function sameSet(a, b) {
    const left = new Set(a);
    const right = new Set(b);
    return (
      left.size === right.size &&
      Array.from(left).every(function (card) {
        return right.has(card);
      })
    );
  }

  function sameList(a, b) {
    return (
      Array.isArray(a) &&
      a.length === b.length &&
      a.every(function (card, i) {
        return card === b[i];
      })
    );
  }

  /* The cards a seat was dealt, as the replay holds them: Court Piece keeps the indicator apart
     from the caller's cards (R9.14.3), and it was dealt to him. */
  function held(hand, seat, court) {
    const cards = hand.cards[seat];
    const indicator = hand.hidden && hand.hidden.card;
    if (court && seat === hand.caller && indicator && cards.indexOf(indicator) < 0) {
      return cards.concat([indicator]);
    }
    return cards;
  }

  /* What does not match in a hand's deal: [] when it verifies, else {what, seat}s. */
  async function check(data, hand) {
    const fair = hand.fair;
    const dealt = hand.dealt;
    const variant = data.variant;
    const players = data.players;
    const court = variant === "court-piece";
    const seeds = fair.client_seeds;
    if (!HEX.test(fair.commit) || !HEX.test(fair.server_seed)) {
      return [{ what: "format" }];
    }
    const seedsRead =
      Array.isArray(seeds) &&
      seeds.length === players &&
      seeds.every(function (seed) {
        return typeof seed === "string" && CLIENT_SEED.test(seed);
      });
    if (!seedsRead) {
      return [{ what: "format" }];
    }
    const serverSeed = bytesOf(fair.server_seed);
    if (hexOf(await crypto.subtle.digest("SHA-256", serverSeed)) !== fair.commit) {
      return [{ what: "commit" }];
    }
    const key = await crypto.subtle.importKey(
      "raw",
      serverSeed,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"]
    );
    const next = stream(key, "deal", hand.number - 1, seeds);
    const deck = await shuffle(
      DECK.filter(function (card) {
        return !(variant === "hokm3" && card === "2C");
      }),
      next
    );
    const lead = court ? hand.caller : hand.hakem;
    const seats = [];
    for (let seat = 0; seat < players; seat += 1) {
      seats.push([]);
    }
    let dealtSoFar = 0;
    ORDER[variant].forEach(function (batch) {
      const seat = (lead + batch[0]) % players;
      seats[seat] = seats[seat].concat(deck.slice(dealtSoFar, dealtSoFar + batch[1]));
      dealtSoFar += batch[1];
    });
    const rest = deck.slice(dealtSoFar);
    const wrong = [];
    if (!sameSet(dealt.first_five, seats[lead].slice(0, 5))) {
      wrong.push({ what: "first_five", seat: lead });
    }
    if (variant === "hokm2-draw") {
      if (!sameSet(dealt.dealer_five, seats[1 - lead].slice(0, 5))) {
        wrong.push({ what: "first_five", seat: 1 - lead });
      }
      if (!sameList(dealt.stock, rest)) {
        wrong.push({ what: "stock" });
      }
    } else {
      for (let seat = 0; seat < players; seat += 1) {
        if (!sameSet(held(hand, seat, court), seats[seat])) {
          wrong.push({ what: "cards", seat: seat });
        }
      }
      if (variant === "hokm2" && dealt.unseen && !sameList(dealt.unseen, rest)) {
        wrong.push({ what: "unseen" });
      }
    }
    // Hidden trump "blind" (R9.14.1): card k of the caller's first five, k drawn next.
    if (hand.hidden && hand.hidden.mode === "blind") {
      const k = await below(next, 5);
      if (hand.hidden.card !== seats[lead][k]) {
        wrong.push({ what: "blind" });
      }
    }
    return wrong;
  }

  if (typeof window !== "undefined") {
    window.hokmVerifyDeal = { check: check };
  }
  if (typeof document === "undefined") {
    return;
  }

  /* ----- the button on the replay ----- */

  const root = document.querySelector("[data-replay]");
  const source = document.getElementById("replay-data");
  const box = root && root.querySelector("[data-verify]");
  if (!box || !source) {
    return;
  }
  const data = JSON.parse(source.textContent);
  const text = data.text.verify;
  const button = box.querySelector("[data-verify-button]");
  const note = box.querySelector("[data-verify-note]");
  const result = box.querySelector("[data-verify-result]");
  let shown = null; // the index of the hand the box is about
  let run = 0; // a check still running when the hand changes says nothing

  /* A sentence with a seat's name in it: the name isolated (<bdi>), as it may be written
     right to left in a left-to-right sentence or the other way round. */
  function sentence(element, problem) {
    const template = text[problem.what] || text.unreadable;
    const name = problem.seat === undefined ? "" : data.seats[problem.seat].name;
    template.split("%(name)s").forEach(function (piece, index) {
      if (index) {
        const bdi = document.createElement("bdi");
        bdi.textContent = name;
        element.appendChild(bdi);
      }
      element.appendChild(document.createTextNode(piece));
    });
    return element;
  }

  /* The check's findings said shortly: a seat whose cards differ needs no word about his first
     five, and when every seat's cards differ (a seed changed), one line says so. */
  function findings(problems) {
    const seats = problems
      .filter(function (problem) {
        return problem.what === "cards";
      })
      .map(function (problem) {
        return problem.seat;
      });
    const every = seats.length === data.players;
    const out = [];
    problems.forEach(function (problem) {
      if (problem.what === "first_five" && seats.indexOf(problem.seat) >= 0) {
        return;
      }
      if (problem.what === "cards" && every) {
        if (seats[0] === problem.seat) {
          out.push({ what: "every" });
        }
        return;
      }
      out.push(problem);
    });
    return out;
  }

  /* kind: "verified", "mismatch", or "unsupported" (no Web Crypto here: nothing was checked). */
  function verdict(kind, words, problems) {
    const panel = document.createElement("div");
    panel.className = "rp-verify__verdict is-" + kind;
    const mark = document.createElement("span");
    mark.className = "rp-verify__mark";
    mark.setAttribute("aria-hidden", "true");
    mark.textContent = { verified: "✓", mismatch: "✗", unsupported: "!" }[kind];
    const body = document.createElement("div");
    body.className = "rp-verify__body";
    const line = document.createElement("p");
    line.textContent = words;
    body.appendChild(line);
    if (problems && problems.length) {
      const list = document.createElement("ul");
      list.className = "rp-verify__problems";
      findings(problems).forEach(function (problem) {
        list.appendChild(sentence(document.createElement("li"), problem));
      });
      body.appendChild(list);
    }
    panel.append(mark, body);
    result.replaceChildren(panel);
    box.dataset.verdict = kind;
  }

  function handShown() {
    const found = /^h(\d+)/.exec(root.dataset.position || "");
    return found ? Number(found[1]) - 1 : 0;
  }

  function follow() {
    const index = handShown();
    if (index === shown) {
      return;
    }
    shown = index;
    run += 1;
    const hand = data.hands[index];
    const checkable = Boolean(hand && hand.fair && hand.dealt);
    button.hidden = !checkable;
    button.disabled = false;
    button.removeAttribute("aria-busy");
    note.hidden = checkable || !hand || Boolean(hand.result);
    note.textContent = note.hidden ? "" : text.later;
    result.replaceChildren();
    delete box.dataset.verdict;
  }

  async function verify() {
    const hand = data.hands[shown];
    if (!hand || !hand.fair) {
      return;
    }
    if (!(window.crypto && window.crypto.subtle)) {
      verdict("unsupported", text.unsupported);
      return;
    }
    const mine = (run += 1);
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    result.textContent = text.checking;
    delete box.dataset.verdict;
    let problems;
    try {
      problems = await check(data, hand);
    } catch (error) {
      problems = [{ what: "unreadable" }];
    }
    if (mine !== run) {
      return; // the replay went to another hand meanwhile
    }
    button.disabled = false;
    button.removeAttribute("aria-busy");
    if (problems.length) {
      verdict("mismatch", text.bad, problems);
    } else {
      verdict("verified", text.ok);
    }
  }

  button.addEventListener("click", verify);
  new MutationObserver(follow).observe(root, {
    attributes: true,
    attributeFilter: ["data-position"],
  });
  follow();
})();
