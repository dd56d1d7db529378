(function () {
  "use strict";
  // Section -> rows. `on` is the account's current value; Weekly digest's is seeded. (The first
  // draw of a seeded stream follows the seed closely, so it is skipped.)
  GB.rand();
  const SECTIONS = [
    { title: "Notifications", desc: "Where and when we tell you about activity.", rows: [
      { key: "desktop", title: "Desktop notifications", desc: "Show a banner on this computer when someone messages you directly.", on: true },
      { key: "mentions", title: "Email me about mentions", desc: "Send an email when you are @mentioned and have not seen it within an hour.", on: true },
      { key: "digest", title: "Weekly digest", desc: "Every Monday morning, a summary of the threads you follow and what you missed.", on: GB.rand() < 0.5 },
      { key: "tips", title: "Product news and tips", desc: "A monthly digest of new features, webinars and ways to get more out of Relay.", on: false },
    ] },
    { title: "Privacy", desc: "Control what other people in your workspace can see.", rows: [
      { key: "receipts", title: "Read receipts", desc: "Let people know when you have read their direct messages.", on: true },
      { key: "typing", title: "Typing indicator", desc: "Show others when you are typing a reply. Works like read receipts, but in real time.", on: true },
      { key: "localtime", title: "Show my local time", desc: "Display your time zone and current time on your profile card.", on: false },
      { key: "activity", title: "Show activity status", desc: "Show a green dot next to your name while you are active.", on: true },
    ] },
    { title: "Security", desc: "Extra checks that keep your account safe.", rows: [
      { key: "newdevice", title: "Verify new devices", desc: "Ask for a code from your authenticator app when you sign in on a new device.", on: true },
      { key: "alerts", title: "Sign-in alerts", desc: "Email you whenever your account is used from a new location.", on: true },
    ] },
    { title: "Labs", desc: "Try features we are still working on. They may change or go away.", rows: [
      { key: "compact", title: "Compact message layout", desc: "Fit more messages on screen by hiding avatars in long threads.", on: false },
      { key: "smart", title: "Suggested replies", desc: "Offer short replies you can send with one click.", on: false },
    ] },
  ];

  const saved = {};
  const current = {};
  const switches = {};
  const root = document.getElementById("sections");

  for (const section of SECTIONS) {
    const card = document.createElement("section");
    card.className = "card";
    const headId = GB.uid("sec");
    card.setAttribute("aria-labelledby", headId);
    card.innerHTML = `<div class="card__head"><h2 id="${headId}"></h2><p></p></div>`;
    card.querySelector("h2").textContent = section.title;
    card.querySelector("p").textContent = section.desc;
    for (const row of GB.shuffle(section.rows)) {
      saved[row.key] = current[row.key] = row.on;
      const titleId = GB.uid("lbl");
      const descId = GB.uid("dsc");
      const el = document.createElement("div");
      el.className = "setting";
      el.innerHTML =
        `<div class="setting__text"><span class="setting__title" id="${titleId}"></span>` +
        `<p class="setting__desc" id="${descId}"></p></div>` +
        `<button type="button" class="switch" role="switch" aria-labelledby="${titleId}" aria-describedby="${descId}">` +
        `<span class="switch__thumb"></span></button>`;
      el.querySelector(".setting__title").textContent = row.title;
      el.querySelector(".setting__desc").textContent = row.desc;
      const sw = el.querySelector(".switch");
      switches[row.key] = sw;
      sw.addEventListener("click", () => {
        current[row.key] = !current[row.key];
        paint();
      });
      card.appendChild(el);
    }
    root.appendChild(card);
  }

  const bar = document.getElementById("savebar");
  const toast = document.getElementById("toast");
  const dirty = () => Object.keys(current).some((k) => current[k] !== saved[k]);

  function paint() {
    for (const [key, sw] of Object.entries(switches)) sw.setAttribute("aria-checked", String(current[key]));
    bar.hidden = !dirty();
  }

  let toastTimer = 0;
  function notify(text) {
    toast.textContent = text;
    toast.classList.add("is-visible");
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => toast.classList.remove("is-visible"), 2500);
  }

  document.getElementById("discard").addEventListener("click", () => {
    Object.assign(current, saved);
    paint();
    notify("Changes discarded");
  });
  document.getElementById("save").addEventListener("click", () => {
    Object.assign(saved, current);
    GB.set({ settings: Object.assign({}, saved) });
    paint();
    notify("Preferences saved");
  });

  paint();
})();
