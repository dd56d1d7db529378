// groundbench page helper: seeded variation and server-side state for fixture pages.
// Served at /_gb/gb.js; the server fills in the origin map. Pages never read state back.
(function () {
  "use strict";
  const params = new URLSearchParams(location.search);
  const cookieSeed = (document.cookie.match(/(?:^|;\s*)gb_seed=(\d+)/) || [])[1];
  const seed = parseInt(params.get("seed") ?? cookieSeed ?? "0", 10) || 0;

  function mulberry32(a) {
    return function () {
      a |= 0; a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  // One stream per page path, so two pages of a site do not share draws.
  let h = 2166136261;
  for (const c of location.pathname) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  const rand = mulberry32((seed * 2654435761) ^ h);
  let renderCounter = 0;

  const GB = {
    seed,
    origins: __GB_ORIGINS__,
    rand,
    int: (n) => Math.floor(rand() * n),
    range: (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1)),
    pick: (arr) => arr[Math.floor(rand() * arr.length)],
    shuffle(arr) {
      const a = arr.slice();
      for (let i = a.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [a[i], a[j]] = [a[j], a[i]];
      }
      return a;
    },
    // A fresh id/class on every call, as frameworks that re-render with generated names do.
    uid(prefix = "x") {
      renderCounter += 1;
      return `${prefix}-${(seed * 7919 + renderCounter * 104729 + GB.int(1e6)).toString(36)}`;
    },
    url(path, extra = {}) {
      const u = new URL(path, location.href);
      if (!u.searchParams.has("seed")) u.searchParams.set("seed", String(seed));
      for (const [k, v] of Object.entries(extra)) u.searchParams.set(k, String(v));
      return u.toString();
    },
    _post(body) {
      return fetch("/_gb/state", {
        method: "POST",
        credentials: "include",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
        keepalive: true,
      }).catch(() => undefined);
    },
    // set({"cart.items": 2}) merges dotted keys into this episode's state.
    set(values) { return GB._post({ set: values }); },
    push(key, item) { return GB._post({ push: { [key]: item } }); },
    incr(key, amount = 1) { return GB._post({ incr: { [key]: amount } }); },
  };
  window.GB = GB;
})();
