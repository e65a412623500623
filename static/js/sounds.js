/* The table's sounds, made in the page with the Web Audio API: no sound files to serve, cache or
   license. window.hokmSounds.play(name) plays one of SOUNDS below.

   Browsers refuse to start sound before the person has interacted with the page, so the
   AudioContext is created (or resumed) only inside a press or a key of his; until then, and
   whenever <html data-sound="off">, play() does nothing at all (no context, no node). The volume
   is <html data-volume> (0 to 100), read at each sound, so a change applies at once. */
(function () {
  "use strict";

  var root = document.documentElement;
  var context = null;
  var noise = null; // one second of white noise, made once, for the snaps and the whoosh

  function soundOn() {
    return root.dataset.sound !== "off";
  }

  function volume() {
    var value = parseInt(root.dataset.volume, 10);
    value = isNaN(value) ? 70 : Math.max(0, Math.min(100, value));
    return (value / 100) * (value / 100); // loudness is heard roughly as the square
  }

  /* Inside a gesture of the player's: the only moment a browser lets sound start. */
  function unlock() {
    if (!soundOn()) {
      return;
    }
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) {
      return;
    }
    try {
      if (!context) {
        context = new Context();
      }
      if (context.state === "suspended") {
        context.resume();
      }
    } catch (error) {
      context = null; // no audio device, or refused: the table stays silent
    }
  }

  ["pointerdown", "keydown", "touchend"].forEach(function (type) {
    document.addEventListener(type, unlock, { capture: true, passive: true });
  });

  function noiseBuffer() {
    if (!noise) {
      var length = context.sampleRate;
      noise = context.createBuffer(1, length, context.sampleRate);
      var data = noise.getChannelData(0);
      for (var i = 0; i < length; i += 1) {
        data[i] = Math.random() * 2 - 1;
      }
    }
    return noise;
  }

  /* A gain that rises in `attack` seconds to `peak` and falls away exponentially by `end`. */
  function envelope(output, start, attack, peak, end) {
    var gain = context.createGain();
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(peak, start + attack);
    gain.gain.exponentialRampToValueAtTime(0.0001, end);
    gain.connect(output);
    return gain;
  }

  function tone(output, options) {
    var start = context.currentTime + (options.at || 0);
    var end = start + options.length;
    var oscillator = context.createOscillator();
    oscillator.type = options.type || "sine";
    oscillator.frequency.setValueAtTime(options.from, start);
    if (options.to) {
      oscillator.frequency.exponentialRampToValueAtTime(options.to, end);
    }
    var target = envelope(output, start, options.attack || 0.01, options.peak || 0.5, end);
    if (options.lowpass) {
      var filter = context.createBiquadFilter();
      filter.type = "lowpass";
      filter.frequency.value = options.lowpass;
      filter.connect(target);
      target = filter;
    }
    oscillator.connect(target);
    oscillator.start(start);
    oscillator.stop(end + 0.02);
  }

  function hiss(output, options) {
    var start = context.currentTime + (options.at || 0);
    var end = start + options.length;
    var source = context.createBufferSource();
    source.buffer = noiseBuffer();
    var filter = context.createBiquadFilter();
    filter.type = "bandpass";
    filter.Q.value = options.q || 1.2;
    filter.frequency.setValueAtTime(options.from, start);
    if (options.to) {
      filter.frequency.exponentialRampToValueAtTime(options.to, end);
    }
    source.connect(filter);
    filter.connect(envelope(output, start, options.attack || 0.003, options.peak || 0.6, end));
    source.start(start, Math.random() * 0.5);
    source.stop(end + 0.02);
  }

  function notes(output, frequencies, step, options) {
    frequencies.forEach(function (frequency, i) {
      tone(output, Object.assign({ from: frequency, at: i * step }, options));
    });
  }

  // Equal-tempered pitches, in hertz.
  var C4 = 261.63, E4b = 311.13, G4 = 392.0, C5 = 523.25, E5 = 659.25, G5 = 783.99, A5 = 880.0;
  var C6 = 1046.5;

  var SOUNDS = {
    // A card put down on the felt: a short, bright snap.
    card: function (out) {
      hiss(out, { from: 2600, q: 0.9, length: 0.07, peak: 0.5 });
      tone(out, { from: 180, to: 90, length: 0.06, peak: 0.25 });
    },
    // Your turn: a soft chime, two notes up.
    turn: function (out) {
      notes(out, [E5, A5], 0.12, { type: "sine", length: 0.35, attack: 0.015, peak: 0.32 });
    },
    // A trick taken: the cards swept together.
    trick: function (out) {
      hiss(out, { from: 500, to: 2400, q: 0.8, length: 0.24, attack: 0.08, peak: 0.35 });
      hiss(out, { at: 0.22, from: 3000, q: 1, length: 0.04, peak: 0.4 });
    },
    // A hand won: a rising arpeggio.
    won: function (out) {
      notes(out, [C5, E5, G5, C6], 0.08, { type: "triangle", length: 0.3, peak: 0.3 });
    },
    // A hand lost: falling, in minor.
    lost: function (out) {
      notes(out, [G4, E4b, C4], 0.14, { type: "triangle", length: 0.38, peak: 0.3 });
    },
    // Kot, court: a short brass fanfare ending on a held chord.
    fanfare: function (out) {
      var brass = { type: "sawtooth", lowpass: 1800, length: 0.14, attack: 0.02, peak: 0.16 };
      notes(out, [G4, C5, E5], 0.1, brass);
      [C5, E5, G5].forEach(function (frequency) {
        tone(out, Object.assign({}, brass, { from: frequency, at: 0.32, length: 0.7 }));
      });
    },
    // A chat message.
    chat: function (out) {
      tone(out, { from: 1100, to: 1500, length: 0.08, peak: 0.25 });
    },
    // One of the last seconds of your clock.
    tick: function (out) {
      tone(out, { type: "square", from: 1900, length: 0.025, attack: 0.002, peak: 0.12 });
    },
  };

  /* Plays a sound now (`delay` seconds later); false when silent (switched off, or before the
     player's first gesture). */
  function play(name, delay) {
    var sound = SOUNDS[name];
    if (!sound || !soundOn() || !context || context.state !== "running") {
      return false;
    }
    var level = volume();
    if (level <= 0) {
      return false;
    }
    var run = function () {
      if (!soundOn()) {
        return; // switched off in between
      }
      var output = context.createGain();
      output.gain.value = level;
      output.connect(context.destination);
      sound(output);
    };
    if (delay) {
      window.setTimeout(run, delay * 1000);
    } else {
      run();
    }
    return true;
  }

  window.hokmSounds = { play: play, unlock: unlock, names: Object.keys(SOUNDS) };
})();
