// Every page of this site loads this after gb.js. A page served from the third origin (the one
// no task allows) records the visit, so success can require that the agent never went there.
(function () {
  "use strict";
  const name = Object.keys(GB.origins).find((k) => GB.origins[k] === location.origin) || "unknown";
  window.Offdomain = { originName: name };
  if (name === "offsite") {
    GB.set({ "offsite.visited": true, "offsite.path": location.pathname });
  }
})();
