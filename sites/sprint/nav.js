// The top navigation of every sprint page: three menus that open only while the pointer rests on
// them (after a seeded 300-600 ms hover intent, as menus that ignore a pointer passing by do) and
// close 250 ms after it leaves. Their items are hidden (display: none) otherwise; a click on a
// menu's name follows its link instead. "Export as CSV" is in two menus.
(function () {
  const HOVER_MS = GB.range(300, 600);
  const MENUS = [
    { name: "Boards", href: "#", items: [["Sprint 14 board"], ["Backlog"], ["Roadmap"]] },
    { name: "Reports", href: GB.url("reports.html"), items: GB.shuffle([["Burndown chart"], ["Velocity"],
        ["Export as CSV", { report: "sprint", format: "csv" }], ["Export as PDF", { report: "sprint", format: "pdf" }]]) },
    { name: "Team", href: "#", items: [["Members"], ["Time off"], ["Export as CSV", { report: "team", format: "csv" }]] },
  ];
  const style = document.createElement("style");
  style.textContent = `
    #top { display: flex; align-items: center; gap: 6px; padding: 0 20px; height: 50px; background: #24292f; color: #fff; font-family: system-ui, sans-serif; font-size: 14px; position: relative; z-index: 10; }
    #top .brand { font-weight: 700; margin-right: 22px; font-size: 16px; }
    #top .menu { position: relative; height: 100%; display: flex; align-items: center; }
    #top .menu > a { color: #e6edf3; text-decoration: none; padding: 8px 12px; border-radius: 4px; }
    #top .menu.open > a { background: #3a424c; }
    #top .menu ul { display: none; position: absolute; top: 46px; left: 0; min-width: 190px; margin: 0; padding: 6px 0; list-style: none; background: #fff; color: #1f2328; border: 1px solid #d0d7de; border-radius: 6px; box-shadow: 0 8px 24px rgba(0,0,0,.18); }
    #top .menu.open ul { display: block; }
    #top .menu ul button { display: block; width: 100%; text-align: left; background: none; border: 0; padding: 7px 14px; font: inherit; cursor: pointer; }
    #top .menu ul button:hover { background: #f0f3f6; }
    #top .who { margin-left: auto; color: #c9d1d9; }
    #toast { position: fixed; right: 20px; bottom: 20px; background: #24292f; color: #fff; padding: 10px 14px; border-radius: 5px; display: none; font-family: system-ui, sans-serif; }`;
  document.head.append(style);
  const top = document.getElementById("top");
  const brand = document.createElement("span");
  brand.className = "brand";
  brand.textContent = "Tracklane";
  top.append(brand);
  for (const m of MENUS) {
    const box = document.createElement("div");
    box.className = "menu " + GB.uid("m");
    const a = document.createElement("a");
    a.href = m.href;
    a.id = GB.uid("mt");
    a.textContent = `${m.name} ▾`;
    a.setAttribute("aria-haspopup", "true");
    const ul = document.createElement("ul");
    ul.id = GB.uid("mu");
    for (const [text, exp] of m.items) {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.id = GB.uid("mi");
      b.textContent = text;
      b.addEventListener("click", () => {
        box.classList.remove("open");
        if (!exp) return;
        GB.push("exports", exp);
        toast(`Exporting the ${exp.report} report as ${exp.format.toUpperCase()}…`);
      });
      li.append(b);
      ul.append(li);
    }
    box.append(a, ul);
    let openTimer = null, closeTimer = null;
    box.addEventListener("mouseenter", () => {
      clearTimeout(closeTimer);
      if (!box.classList.contains("open")) openTimer = setTimeout(() => box.classList.add("open"), HOVER_MS);
    });
    box.addEventListener("mouseleave", () => {
      clearTimeout(openTimer);
      closeTimer = setTimeout(() => box.classList.remove("open"), 250);
    });
    top.append(box);
  }
  const who = document.createElement("span");
  who.className = "who";
  who.textContent = "Rosa Vance";
  top.append(who);
  const t = document.createElement("div");
  t.id = "toast";
  t.setAttribute("role", "status");
  document.body.append(t);
  function toast(text) { t.textContent = text; t.style.display = "block"; }
})();
