// The playground's service worker: keeps this build's files so that the page works offline
// once loaded. The page registers it when Python is ready, when everything has been fetched
// once; it then fills its cache from the browser's HTTP cache and answers every request of
// this site from it (falling back to the network for anything new). BUILD_ID is the build's
// digest (build.py writes it): a new build gets a new cache and the old one is dropped.
const CACHE = "scalarlang-playground-BUILD_ID";
const FILES = [
  "./", "index.html", "style.css", "favicon.svg", "playground.js", "highlight.js", "kept.js", "output.js", "worker.js", "sad_playground.py",
  "manifest.json", "pyodide/pyodide.mjs", "pyodide/pyodide.asm.mjs", "pyodide/pyodide.asm.wasm",
  "pyodide/python_stdlib.zip", "pyodide/pyodide-lock.json",
];

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const manifest = await (await fetch("manifest.json")).json();
    const files = [
      ...FILES,
      ...manifest.wheels.map((name) => `wheels/${name}`),
      ...manifest.data.map((name) => `examples/${name}`),
      ...(manifest.larkCache ? [manifest.larkCache.file] : []),
      ...(manifest.bytecode ? [manifest.bytecode.file] : []),
    ];
    const cache = await caches.open(CACHE);
    await cache.addAll(files);
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("scalarlang-playground-") && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    const kept = await cache.match(request, { ignoreSearch: true });
    return kept || fetch(request);
  })());
});
