/* The site's service worker, served as /sw.js (hokm_site/pwa.py) so that its scope is the whole
   site. It keeps the static files, and only those: docs/app.md says why and how.

   - A file under /static/ whose name carries its content's hash (production: whitenoise's
     manifest storage, "match.3f2a9c0d1e4b.js") never changes: cache first, and once a new
     version of it is stored, the older ones of the same file go.
   - Any other file under /static/ (development serves them unhashed): network first, the cached
     copy only when the network fails.
   - Everything else (pages, /ws/, /api/, /match/, game records, the admin) is not touched: the
     browser fetches it as if there were no worker, so no game data is ever stored here. */
"use strict";

var CACHE = "hokm-static-v1";
var HASHED = /^(.*)\.([0-9a-f]{12})(\.[^./]+)$/;

function isStatic(url) {
  return url.origin === self.location.origin && url.pathname.indexOf("/static/") === 0;
}

self.addEventListener("install", function () {
  self.skipWaiting();
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches
      .keys()
      .then(function (names) {
        return Promise.all(
          names
            .filter(function (name) {
              return name.indexOf("hokm-") === 0 && name !== CACHE;
            })
            .map(function (name) {
              return caches.delete(name);
            })
        );
      })
      .then(function () {
        return self.clients.claim();
      })
  );
});

function storable(response) {
  return response && response.status === 200 && response.type === "basic";
}

/* Stores a hashed file and drops the other versions of the same file. */
function storeHashed(cache, request, response, parts) {
  return cache.keys().then(function (requests) {
    var stale = requests.filter(function (old) {
      var oldParts = HASHED.exec(new URL(old.url).pathname);
      return (
        oldParts && oldParts[1] === parts[1] && oldParts[3] === parts[3] && oldParts[2] !== parts[2]
      );
    });
    return Promise.all(
      stale.map(function (old) {
        return cache.delete(old);
      })
    ).then(function () {
      return cache.put(request, response);
    });
  });
}

function cacheFirst(event, parts) {
  var request = event.request;
  return caches.open(CACHE).then(function (cache) {
    return cache.match(request).then(function (cached) {
      if (cached) {
        return cached;
      }
      return fetch(request).then(function (response) {
        if (storable(response)) {
          event.waitUntil(storeHashed(cache, request, response.clone(), parts));
        }
        return response;
      });
    });
  });
}

function networkFirst(event) {
  var request = event.request;
  return caches.open(CACHE).then(function (cache) {
    return fetch(request).then(
      function (response) {
        if (storable(response)) {
          event.waitUntil(cache.put(request, response.clone()));
        }
        return response;
      },
      function (error) {
        return cache.match(request).then(function (cached) {
          if (cached) {
            return cached;
          }
          throw error;
        });
      }
    );
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (request.method !== "GET" || !isStatic(url) || request.headers.has("range")) {
    return; // not ours: straight to the network
  }
  var parts = HASHED.exec(url.pathname);
  event.respondWith(parts ? cacheFirst(event, parts) : networkFirst(event));
});
