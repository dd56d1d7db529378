(function () {
  "use strict";

  const OWNER = { name: "Alex Morgan", email: "alex.morgan@northwind.studio", role: "Owner", you: true };
  const PEOPLE = [
    { name: "Dana Ortiz", email: "dana.ortiz@northwind.studio", role: "Editor" },
    { name: "Priya Raman", email: "priya.raman@northwind.studio", role: "Admin" },
    { name: "Priya Ramos", email: "p.ramos@northwind.studio", role: "Viewer" },
    { name: "Tomasz Nowak", email: "tomasz.nowak@northwind.studio", role: "Editor" },
    { name: "Grace Okafor", email: "grace.okafor@northwind.studio", role: "Admin" },
    { name: "Lukas Brandt", email: "lukas.brandt@northwind.studio", role: "Viewer" },
    { name: "Mei Chen", email: "mei.chen@northwind.studio", role: "Editor" },
    { name: "Samuel Adeyemi", email: "samuel.adeyemi@northwind.studio", role: "Editor", pending: true },
  ];
  const COLOURS = ["#4c6ef5", "#12b886", "#f76707", "#ae3ec9", "#1c7ed6", "#e64980", "#2b8a3e", "#5f3dc4", "#c2255c"];
  const ACTIVE = ["Just now", "5 minutes ago", "1 hour ago", "3 hours ago", "Yesterday", "2 days ago", "Last week", "3 weeks ago"];

  // Seeded: the order of the rows (the owner stays first), avatar colours and activity times.
  const members = [OWNER, ...GB.shuffle(PEOPLE)].map((p, i) => ({
    ...p,
    id: GB.uid("m"),
    colour: COLOURS[(i + GB.int(COLOURS.length)) % COLOURS.length],
    active: p.pending ? "Invitation sent" : (p.you ? "Just now" : GB.pick(ACTIVE)),
  }));
  const removed = [];

  const tbody = document.getElementById("rows");
  const filter = document.getElementById("filter");
  const count = document.getElementById("count");
  const empty = document.getElementById("empty");
  const menu = document.getElementById("row-menu");
  const overlay = document.getElementById("confirm");
  const toastEl = document.getElementById("toast");
  let menuFor = null;      // the member whose menu is open
  let menuButton = null;   // the button that opened it
  let pendingRemoval = null;
  let toastTimer = 0;

  const initials = (name) => name.split(/\s+/).map((w) => w[0]).join("").slice(0, 2).toUpperCase();

  function render() {
    const q = filter.value.trim().toLowerCase();
    tbody.textContent = "";
    let shown = 0;
    for (const m of members) {
      if (q && !(m.name.toLowerCase().includes(q) || m.email.toLowerCase().includes(q))) continue;
      shown += 1;
      const tr = document.createElement("tr");
      tr.dataset.memberId = m.id;
      const roleClass = m.role === "Owner" ? " badge--owner" : (m.role === "Viewer" ? " badge--viewer" : "");
      tr.innerHTML = `
        <td>
          <div class="member">
            <span class="avatar" aria-hidden="true" style="background:${m.colour}">${initials(m.name)}</span>
            <div>
              <div class="member__name"></div>
              <div class="member__email"></div>
            </div>
          </div>
        </td>
        <td><span class="badge${roleClass}">${m.role}</span>${m.pending ? '<span class="badge badge--pending">Pending</span>' : ""}</td>
        <td class="muted">${m.active}</td>
        <td class="col-actions">
          <button class="icon-btn" type="button" aria-label="More actions" aria-haspopup="menu" aria-expanded="false" title="More actions">⋯</button>
        </td>`;
      tr.querySelector(".member__name").textContent = m.name + (m.you ? " (you)" : "");
      tr.querySelector(".member__email").textContent = m.email;
      const btn = tr.querySelector(".icon-btn");
      btn.addEventListener("click", (ev) => {
        ev.stopPropagation();
        if (menuFor === m) closeMenu(); else openMenu(m, btn);
      });
      tbody.appendChild(tr);
    }
    count.textContent = `${members.length} member${members.length === 1 ? "" : "s"}`;
    empty.hidden = shown > 0;
  }

  function items() { return [...menu.querySelectorAll('[role="menuitem"]')].filter((el) => !el.hidden); }

  function openMenu(member, btn) {
    closeMenu();
    menuFor = member; menuButton = btn;
    btn.setAttribute("aria-expanded", "true");
    menu.querySelector('[data-action="resend"]').hidden = !member.pending;
    const remove = menu.querySelector('[data-action="remove"]');
    remove.textContent = member.pending ? "Revoke invitation" : "Remove from team";
    remove.setAttribute("aria-disabled", member.you ? "true" : "false");
    remove.title = member.you ? "The workspace owner can't be removed" : "";
    menu.hidden = false;
    place();
    items()[0].focus({ preventScroll: true });
  }

  // Position beside the button; flip above it when there is no room below.
  function place() {
    if (menu.hidden || !menuButton) return;
    const r = menuButton.getBoundingClientRect();
    const mw = menu.offsetWidth, mh = menu.offsetHeight;
    let top = r.bottom + 4;
    if (top + mh > window.innerHeight - 8) top = Math.max(8, r.top - mh - 4);
    menu.style.top = top + "px";
    menu.style.left = Math.max(8, r.right - mw) + "px";
  }

  function closeMenu(returnFocus) {
    if (menu.hidden) return;
    menu.hidden = true;
    if (menuButton) {
      menuButton.setAttribute("aria-expanded", "false");
      if (returnFocus && document.contains(menuButton)) menuButton.focus();
    }
    menuFor = null; menuButton = null;
  }

  function toast(text) {
    toastEl.textContent = text; toastEl.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { toastEl.hidden = true; }, 4000);
  }

  menu.addEventListener("click", (ev) => {
    const item = ev.target.closest('[role="menuitem"]');
    if (!item || item.getAttribute("aria-disabled") === "true") return;
    const m = menuFor;
    closeMenu(true);
    switch (item.dataset.action) {
      case "profile": toast(`Profiles are coming soon — ${m.name}`); break;
      case "copy":
        try { navigator.clipboard && navigator.clipboard.writeText(m.email).catch(() => {}); } catch (e) { /* ignore */ }
        toast("Email address copied");
        break;
      case "resend": toast(`Invitation sent again to ${m.email}`); break;
      case "remove": askRemove(m); break;
    }
  });

  menu.addEventListener("keydown", (ev) => {
    const list = items().filter((el) => el.getAttribute("aria-disabled") !== "true");
    const i = list.indexOf(document.activeElement);
    if (ev.key === "ArrowDown") { ev.preventDefault(); list[(i + 1) % list.length].focus(); }
    else if (ev.key === "ArrowUp") { ev.preventDefault(); list[(i - 1 + list.length) % list.length].focus(); }
    else if (ev.key === "Escape") { ev.preventDefault(); closeMenu(true); }
    else if (ev.key === "Tab") { closeMenu(); }
  });

  document.addEventListener("click", (ev) => {
    if (!menu.hidden && !menu.contains(ev.target)) closeMenu();
  });
  // The menu follows its button when the page scrolls or resizes.
  window.addEventListener("resize", place);
  window.addEventListener("scroll", place, true);

  function askRemove(m) {
    pendingRemoval = m;
    document.getElementById("confirm-title").textContent =
      m.pending ? `Revoke the invitation for ${m.name}?` : `Remove ${m.name} from the team?`;
    document.getElementById("confirm-body").textContent = m.pending
      ? "The invitation link will stop working. You can invite them again later."
      : `${m.name.split(" ")[0]} will immediately lose access to every project in Northwind Studio. You can invite them again later.`;
    document.getElementById("confirm-ok").textContent = m.pending ? "Revoke" : "Remove";
    overlay.hidden = false;
    document.getElementById("confirm-cancel").focus();
  }

  function closeDialog() {
    overlay.hidden = true;
    pendingRemoval = null;
  }

  document.getElementById("confirm-cancel").addEventListener("click", closeDialog);
  overlay.addEventListener("click", (ev) => { if (ev.target === overlay) closeDialog(); });
  overlay.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") { ev.preventDefault(); closeDialog(); }
    if (ev.key === "Tab") {  // keep focus inside the dialog
      const f = [...overlay.querySelectorAll("button")];
      const i = f.indexOf(document.activeElement);
      ev.preventDefault();
      f[(i + (ev.shiftKey ? -1 : 1) + f.length) % f.length].focus();
    }
  });
  document.getElementById("confirm-ok").addEventListener("click", () => {
    const m = pendingRemoval;
    if (!m) return;
    const idx = members.indexOf(m);
    if (idx >= 0) members.splice(idx, 1);
    removed.push(m.name);
    GB.set({ team: { removed: removed.slice() } });
    closeDialog();
    render();
    toast(m.pending ? `Invitation for ${m.name} revoked` : `${m.name} was removed from the team`);
  });

  document.getElementById("invite").addEventListener("click", () => toast("Invitations are disabled in this workspace"));
  filter.addEventListener("input", () => { closeMenu(); render(); });

  render();
})();
