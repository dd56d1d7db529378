/* Ledger — team budget sheet. Hand-rolled grid with inline cell editing, sortable headers,
   a row actions menu rendered in a portal, and a sticky "unsaved changes" bar. */
(function () {
  "use strict";

  // ---------------------------------------------------------------- seed data
  const TEAM = GB.pick(["Platform", "Growth", "Data", "Design Systems", "Mobile"]);
  const FY = GB.pick(["FY2025", "FY2026"]);
  const PEOPLE = GB.shuffle([
    "Maya Chen", "Jonas Weber", "Priya Natarajan", "Tomás Ortega", "Aisha Bello", "Lukas Novak",
    "Hannah Kim", "Diego Álvarez", "Sofia Rossi", "Owen Murphy", "Nadia Haddad", "Ben Carter",
  ]);
  const AVATAR_COLORS = ["#6366f1", "#0ea5e9", "#14b8a6", "#f59e0b", "#ef4444", "#8b5cf6", "#10b981", "#ec4899"];
  const STATUSES = [
    { id: "ok", label: "On track" }, { id: "risk", label: "At risk" },
    { id: "over", label: "Over budget" }, { id: "draft", label: "Draft" },
  ];
  const CATEGORIES = [
    ["Travel", "#0ea5e9"], ["Conference travel", "#38bdf8"], ["Conference sponsorships", "#a855f7"],
    ["Software licenses", "#6366f1"], ["Cloud hosting", "#14b8a6"], ["Hardware", "#64748b"],
    ["Training & courses", "#f59e0b"], ["Team offsites", "#ec4899"], ["Contractors", "#ef4444"],
    ["Office supplies", "#84cc16"],
  ];

  const slug = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
  const amount = () => GB.range(24, 360) * 100;
  const initials = (name) => name.split(/\s+/).map((p) => p[0]).join("").slice(0, 2).toUpperCase();
  const colorFor = (name) => {
    let h = 0;
    for (const c of name) h = (h * 31 + c.charCodeAt(0)) | 0;
    return AVATAR_COLORS[Math.abs(h) % AVATAR_COLORS.length];
  };
  const money = (n) => "$" + Number(n).toLocaleString("en-US", { maximumFractionDigits: 2 });
  const clone = (x) => JSON.parse(JSON.stringify(x));
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));

  let rows = GB.shuffle(CATEGORIES).map(([name, color], i) => {
    const r = {
      key: slug(name), category: name, color, owner: PEOPLE[i % PEOPLE.length],
      q1: amount(), q2: amount(), status: GB.pick(STATUSES).id, archived: false, deleted: false,
    };
    return r;
  });
  for (const r of rows) while (r.q2 === 18500 || r.q2 === r.q1) r.q2 = amount();

  const original = clone(rows);          // as loaded: what Save reports against
  let saved = clone(rows);               // last saved version: what Discard returns to
  let sort = { col: null, dir: 0 };
  let filterText = "";
  let editing = null;                    // {row, field, cell, input}
  let menu = null;                       // {row, el, btn}
  let copyCounter = 0;
  let newCounter = 0;

  const COLS = [
    { id: "category", label: "Category", edit: "text" },
    { id: "owner", label: "Owner", edit: "text" },
    { id: "q1", label: "Q1", edit: "number", num: true },
    { id: "q2", label: "Q2", edit: "number", num: true },
    { id: "total", label: "Total", num: true },
    { id: "status", label: "Status" },
  ];

  const $ = (sel) => document.querySelector(sel);
  const head = $("#grid-head"), body = $("#grid-body"), foot = $("#grid-foot");

  // ---------------------------------------------------------------- chrome
  const me = PEOPLE[0];
  $("#me-name").textContent = me;
  $("#me-avatar").textContent = initials(me);
  $("#me-avatar").style.background = colorFor(me);
  $("#crumb-team").textContent = TEAM;
  $("#sheet-title").textContent = `${TEAM} team budget`;
  $("#sheet-fy").textContent = FY;
  $("#presence").innerHTML = PEOPLE.slice(1, 4).map((p) =>
    `<span class="avatar" style="background:${colorFor(p)}" title="${esc(p)} is viewing">${initials(p)}</span>`).join("");

  // ---------------------------------------------------------------- helpers
  const active = () => rows.filter((r) => !r.deleted && !r.archived);
  const total = (r) => Number(r.q1) + Number(r.q2);
  const byKey = (list, key) => list.find((r) => r.key === key);

  function unsavedCount() {
    let n = 0;
    for (const r of rows) {
      const s = byKey(saved, r.key);
      if (!s) { if (!r.deleted) n += 1; continue; }
      if (r.deleted !== s.deleted) { n += 1; continue; }
      if (r.deleted) continue;
      if (r.archived !== s.archived) n += 1;
      for (const f of ["category", "owner", "q1", "q2"]) if (r[f] !== s[f]) n += 1;
    }
    return n;
  }

  function isDirty(r, field) {
    const s = byKey(saved, r.key);
    return !s || s[field] !== r[field];
  }

  function cellHTML(r, col) {
    switch (col.id) {
      case "category":
        return `<span class="cat"><span class="cat__swatch" style="background:${r.color}"></span><span class="cat__name">${esc(r.category)}</span></span>`;
      case "owner":
        return `<span class="owner"><span class="avatar avatar--sm" style="background:${colorFor(r.owner)}">${initials(r.owner)}</span><span class="owner__name">${esc(r.owner)}</span></span>`;
      case "q1": case "q2":
        return money(r[col.id]);
      case "total":
        return money(total(r));
      case "status": {
        const st = STATUSES.find((s) => s.id === r.status);
        return `<span class="pill pill--${st.id}">${st.label}</span>`;
      }
    }
    return "";
  }

  function paintCell(cell, r, col) {
    cell.className = "cell" + (col.num ? " cell--num" : "") + (col.edit ? " cell--editable" : "") +
      (col.id === "total" ? " cell--total" : "") + (col.edit && isDirty(r, col.id) ? " is-dirty" : "");
    cell.innerHTML = cellHTML(r, col);
  }

  // ---------------------------------------------------------------- render
  function renderHead() {
    const cells = COLS.map((c) => {
      const sorted = sort.col === c.id && sort.dir !== 0;
      const ind = sorted ? (sort.dir > 0 ? "▲" : "▼") : "↕";
      return `<div class="hcell${c.num ? " hcell--num" : ""}${sorted ? " is-sorted" : ""}" data-sort="${c.id}">${c.label}<span class="sort-ind">${ind}</span></div>`;
    }).join("");
    head.innerHTML = `<div class="grid__headrow">${cells}<div class="hcell hcell--static"></div></div>`;
  }

  function visibleRows() {
    let list = active();
    if (filterText) {
      const q = filterText.toLowerCase();
      list = list.filter((r) => (r.category + " " + r.owner).toLowerCase().includes(q));
    }
    if (sort.col && sort.dir) {
      const get = (r) => sort.col === "total" ? total(r)
        : sort.col === "status" ? STATUSES.findIndex((s) => s.id === r.status) : r[sort.col];
      list = list.slice().sort((a, b) => {
        const x = get(a), y = get(b);
        return (typeof x === "number" ? x - y : String(x).localeCompare(String(y))) * sort.dir;
      });
    }
    return list;
  }

  function renderBody(flashKey) {
    closeMenu();
    editing = null;
    body.innerHTML = "";
    const list = visibleRows();
    if (!list.length) {
      body.innerHTML = `<div class="grid__empty">No rows match “${esc(filterText)}”.</div>`;
    }
    for (const r of list) {
      const row = document.createElement("div");
      row.className = "grid__row" + (r.key === flashKey ? " is-new" : "");
      row.id = GB.uid("row");
      row._row = r;
      for (const col of COLS) {
        const cell = document.createElement("div");
        cell.dataset.col = col.id;
        paintCell(cell, r, col);
        row.appendChild(cell);
      }
      const k = document.createElement("div");
      k.className = "kebab-wrap";
      k.innerHTML = `<button class="kebab" type="button" title="More actions">⋯</button>`;
      row.appendChild(k);
      body.appendChild(row);
    }
    renderFoot();
    renderMeta();
  }

  function renderFoot() {
    const list = active();
    const q1 = list.reduce((a, r) => a + Number(r.q1), 0);
    const q2 = list.reduce((a, r) => a + Number(r.q2), 0);
    foot.innerHTML = `<div class="grid__footrow">
      <div class="cell">Total <span class="foot-note">&nbsp;· ${list.length} categories</span></div>
      <div class="cell"></div>
      <div class="cell cell--num">${money(q1)}</div>
      <div class="cell cell--num">${money(q2)}</div>
      <div class="cell cell--num">${money(q1 + q2)}</div>
      <div class="cell"></div><div class="cell"></div></div>`;
  }

  function renderMeta() {
    const arch = rows.filter((r) => r.archived && !r.deleted).length;
    $("#row-meta").textContent = `${active().length} rows` + (arch ? ` · ${arch} archived` : "");
    const n = unsavedCount();
    const bar = $("#savebar");
    bar.hidden = n === 0;
    $("#savebar-count").textContent = `${n} unsaved change${n === 1 ? "" : "s"}`;
  }

  // ---------------------------------------------------------------- editing
  function startEdit(cell) {
    const rowEl = cell.closest(".grid__row");
    const r = rowEl._row;
    const col = COLS.find((c) => c.id === cell.dataset.col);
    if (!col || !col.edit) return;
    if (editing && editing.cell === cell) return;
    if (editing) commitEdit();
    closeMenu();
    const input = document.createElement("input");
    input.className = "cell-input";
    input.type = "text";
    input.autocomplete = "off";
    input.value = String(r[col.id]);
    cell.classList.add("is-editing");
    cell.classList.remove("is-dirty");
    cell.innerHTML = "";
    cell.appendChild(input);
    editing = { r, col, cell, input };
    input.focus();
    input.select();
    input.addEventListener("keydown", onEditKey);
    input.addEventListener("blur", () => { if (editing && editing.input === input) commitEdit({ onBlur: true }); });
    input.addEventListener("input", () => { input.classList.remove("is-invalid"); const e = cell.querySelector(".cell-error"); if (e) e.remove(); });
  }

  function parseValue(col, raw) {
    const v = raw.trim();
    if (col.edit === "number") {
      const s = v.replace(/[$,\s]/g, "");
      if (!/^\d+(\.\d{1,2})?$/.test(s)) return { ok: false };
      return { ok: true, value: Number(s) };
    }
    if (!v) return { ok: false };
    return { ok: true, value: v };
  }

  function commitEdit(opts = {}) {
    if (!editing) return true;
    const { r, col, cell, input } = editing;
    const parsed = parseValue(col, input.value);
    if (!parsed.ok) {
      if (opts.onBlur) { cancelEdit(); return true; }
      input.classList.add("is-invalid");
      if (!cell.querySelector(".cell-error")) {
        const e = document.createElement("span");
        e.className = "cell-error";
        e.textContent = col.edit === "number" ? "Enter a number" : "Required";
        cell.appendChild(e);
      }
      return false;
    }
    editing = null;
    const before = r[col.id];
    r[col.id] = parsed.value;
    paintCell(cell, r, col);
    if (before !== parsed.value) {
      GB.set({ [`actions.edit.${r.key}.${col.id}`]: parsed.value });
      const rowEl = cell.closest(".grid__row");
      const tcell = rowEl && rowEl.querySelector('[data-col="total"]');
      if (tcell) paintCell(tcell, r, COLS.find((c) => c.id === "total"));
      renderFoot();
    }
    renderMeta();
    return true;
  }

  function cancelEdit() {
    if (!editing) return;
    const { r, col, cell } = editing;
    editing = null;
    paintCell(cell, r, col);
  }

  function onEditKey(ev) {
    if (ev.key === "Enter") {
      ev.preventDefault();
      commitEdit();
    } else if (ev.key === "Escape") {
      ev.preventDefault();
      ev.stopPropagation();
      cancelEdit();
    } else if (ev.key === "Tab") {
      ev.preventDefault();
      const cell = editing.cell;
      if (!commitEdit()) return;
      const editable = [...cell.closest(".grid__row").querySelectorAll(".cell--editable")];
      const next = editable[editable.indexOf(cell) + (ev.shiftKey ? -1 : 1)];
      if (next) startEdit(next);
    }
  }

  // ---------------------------------------------------------------- row menu
  function openMenu(btn, r) {
    if (menu && menu.btn === btn) { closeMenu(); return; }
    closeMenu();
    const el = document.createElement("div");
    el.className = "row-menu";
    el.setAttribute("role", "menu");
    el.innerHTML = `
      <div class="row-menu__item" role="menuitem" data-act="duplicate"><span class="ico">□</span>Duplicate</div>
      <div class="row-menu__item" role="menuitem" data-act="archive"><span class="ico">▤</span>Archive</div>
      <div class="row-menu__sep"></div>
      <div class="row-menu__item row-menu__item--danger" role="menuitem" data-act="delete"><span class="ico">×</span>Delete</div>`;
    $("#portal").appendChild(el);
    btn.classList.add("is-open");
    menu = { el, btn, r };
    placeMenu();
    el.addEventListener("click", (ev) => {
      const item = ev.target.closest(".row-menu__item");
      if (!item) return;
      const act = item.dataset.act;
      closeMenu();
      if (act === "duplicate") duplicateRow(r);
      else if (act === "archive") archiveRow(r);
      else if (act === "delete") confirmDelete(r);
    });
  }

  function placeMenu() {
    if (!menu) return;
    const b = menu.btn.getBoundingClientRect();
    const h = menu.el.offsetHeight, w = menu.el.offsetWidth;
    let top = b.bottom + 4;
    if (top + h > window.innerHeight - 8) top = b.top - h - 4;
    menu.el.style.top = `${Math.max(8, top)}px`;
    menu.el.style.left = `${Math.max(8, b.right - w)}px`;
  }

  function closeMenu() {
    if (!menu) return;
    menu.btn.classList.remove("is-open");
    menu.el.remove();
    menu = null;
  }

  // ---------------------------------------------------------------- row actions
  function duplicateRow(r) {
    copyCounter += 1;
    const copy = { ...clone(r), key: `${r.key}_copy${copyCounter}`, category: `${r.category} (copy)` };
    rows.splice(rows.indexOf(r) + 1, 0, copy);
    GB.set({ [`actions.duplicate.${r.key}`]: true });
    renderBody(copy.key);
    toast(`Duplicated “${r.category}”`);
  }

  function archiveRow(r) {
    r.archived = true;
    GB.set({ [`actions.archive.${r.key}`]: true });
    renderBody();
    toast(`Archived “${r.category}”`, "Undo", () => {
      const cur = byKey(rows, r.key);
      if (cur) { cur.archived = false; renderBody(cur.key); }
    });
  }

  function confirmDelete(r) {
    const scrim = document.createElement("div");
    scrim.className = "scrim";
    scrim.innerHTML = `<div class="dialog" role="dialog" aria-modal="true">
      <h3>Delete “${esc(r.category)}”?</h3>
      <p>This removes the row and its amounts from the ${esc(TEAM)} budget. You can’t undo this after saving.</p>
      <div class="dialog__actions">
        <button type="button" class="btn btn--ghost" data-act="cancel">Cancel</button>
        <button type="button" class="btn btn--danger" data-act="delete">Delete row</button>
      </div></div>`;
    document.body.appendChild(scrim);
    const close = () => { scrim.remove(); document.removeEventListener("keydown", onKey, true); };
    const onKey = (ev) => { if (ev.key === "Escape") { ev.stopPropagation(); close(); } };
    document.addEventListener("keydown", onKey, true);
    scrim.addEventListener("click", (ev) => {
      const act = ev.target.closest("[data-act]")?.dataset.act;
      if (ev.target === scrim || act === "cancel") close();
      else if (act === "delete") {
        close();
        r.deleted = true;
        GB.set({ [`actions.delete.${r.key}`]: true });
        renderBody();
        toast(`Deleted “${r.category}”`);
      }
    });
  }

  function addRow() {
    newCounter += 1;
    const r = {
      key: `new_row_${newCounter}`, category: "Untitled category", color: "#94a3b8", owner: me,
      q1: 0, q2: 0, status: "draft", archived: false, deleted: false,
    };
    rows.push(r);
    GB.set({ [`actions.add.${r.key}`]: true });
    renderBody(r.key);
  }

  // ---------------------------------------------------------------- save / discard
  function diffAgainstOriginal() {
    const changes = {};
    const archived = [], deleted = [], added = [];
    for (const r of rows) {
      const o = byKey(original, r.key);
      if (!o) { if (!r.deleted) added.push(r.category); if (r.archived && !r.deleted) archived.push(r.category); continue; }
      if (r.deleted) { deleted.push(o.category); continue; }
      if (r.archived) archived.push(r.category);
      for (const f of ["category", "owner", "q1", "q2"]) {
        if (r[f] !== o[f]) (changes[r.key] = changes[r.key] || {})[f] = r[f];
      }
    }
    return { changes, archived: archived.sort(), deleted: deleted.sort(), added: added.sort() };
  }

  let saving = false;
  async function save() {
    if (saving) return;
    if (editing && !commitEdit()) return;
    saving = true;
    const btn = $("#savebar-save");
    btn.disabled = true;
    btn.textContent = "Saving…";
    const d = diffAgainstOriginal();
    await new Promise((res) => setTimeout(res, 450));
    await GB.set({
      saved: true, "save.changes": d.changes, "save.archived": d.archived,
      "save.deleted": d.deleted, "save.added": d.added,
    });
    saved = clone(rows);
    saving = false;
    btn.disabled = false;
    btn.textContent = "Save changes";
    renderBody();
    toast("Changes saved", null, null, "ok");
  }

  function discard() {
    rows = clone(saved);
    renderBody();
    toast("Changes discarded");
  }

  // ---------------------------------------------------------------- toasts
  function toast(text, actionLabel, onAction, kind) {
    const t = document.createElement("div");
    t.className = "toast" + (kind ? ` toast--${kind}` : "");
    t.innerHTML = `<span>${esc(text)}</span>`;
    if (actionLabel) {
      const a = document.createElement("span");
      a.className = "toast__action";
      a.textContent = actionLabel;
      a.addEventListener("click", () => { t.remove(); onAction(); });
      t.appendChild(a);
    }
    $("#toasts").appendChild(t);
    setTimeout(() => t.remove(), 6000);
  }

  // ---------------------------------------------------------------- events
  head.addEventListener("click", (ev) => {
    const h = ev.target.closest("[data-sort]");
    if (!h) return;
    if (editing) commitEdit({ onBlur: true });
    const col = h.dataset.sort;
    if (sort.col !== col) sort = { col, dir: 1 };
    else sort.dir = sort.dir === 1 ? -1 : sort.dir === -1 ? 0 : 1;
    renderHead();
    renderBody();
  });

  body.addEventListener("click", (ev) => {
    const kebab = ev.target.closest(".kebab");
    if (kebab) {
      ev.stopPropagation();
      openMenu(kebab, kebab.closest(".grid__row")._row);
      return;
    }
    const cell = ev.target.closest(".cell--editable, .cell.is-editing");
    if (cell) startEdit(cell);
  });

  document.addEventListener("mousedown", (ev) => {
    if (menu && !menu.el.contains(ev.target) && !menu.btn.contains(ev.target)) closeMenu();
  });
  document.addEventListener("keydown", (ev) => { if (ev.key === "Escape") closeMenu(); });
  window.addEventListener("scroll", placeMenu, { passive: true });
  window.addEventListener("resize", closeMenu);

  $("#filter").addEventListener("input", (ev) => { filterText = ev.target.value.trim(); renderBody(); });
  $("#btn-add").addEventListener("click", addRow);
  $("#btn-export").addEventListener("click", () => toast("Export started — you’ll get an email when it’s ready"));
  $("#btn-share").addEventListener("click", () => toast("Link copied to clipboard"));
  $("#savebar-save").addEventListener("click", save);
  $("#savebar-discard").addEventListener("click", (ev) => { ev.preventDefault(); discard(); });

  renderHead();
  renderBody();
})();
