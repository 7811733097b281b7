// The harness's pages: sortable tables and the replay slider. No library, no network.
"use strict";

function cellValue(cell) {
  const raw = cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent.trim();
  const number = parseFloat(raw);
  return raw !== "" && !isNaN(number) && isFinite(raw) ? number : raw.toLowerCase();
}

function makeSortable(table) {
  const headers = Array.from(table.tHead.rows[0].cells);
  headers.forEach((header, index) => {
    header.addEventListener("click", () => {
      const ascending = !header.classList.contains("sorted-asc");
      headers.forEach((h) => h.classList.remove("sorted-asc", "sorted-desc"));
      header.classList.add(ascending ? "sorted-asc" : "sorted-desc");
      const body = table.tBodies[0];
      const rows = Array.from(body.rows);
      rows.sort((a, b) => {
        const x = cellValue(a.cells[index]);
        const y = cellValue(b.cells[index]);
        const order = x < y ? -1 : x > y ? 1 : 0;
        return ascending ? order : -order;
      });
      rows.forEach((row) => body.appendChild(row));
    });
  });
}

function startReplay(root) {
  const frames = JSON.parse(document.getElementById("frames").textContent);
  const slider = root.querySelector("#ply");
  const board = root.querySelector("#board");
  const label = root.querySelector("#ply-label");
  const move = root.querySelector("#move");
  let timer = null;
  function show(index) {
    const frame = frames[index];
    board.innerHTML = frame.svg;
    slider.value = String(index);
    label.textContent = "ply " + index + " of " + (frames.length - 1);
    move.textContent = index === 0 ? "start position" : frame.by + ": " + frame.move;
    root.dataset.ply = String(index);
  }
  slider.addEventListener("input", () => show(parseInt(slider.value, 10)));
  root.querySelector("#prev").addEventListener("click", () => show(Math.max(0, parseInt(slider.value, 10) - 1)));
  root.querySelector("#next").addEventListener("click", () => show(Math.min(frames.length - 1, parseInt(slider.value, 10) + 1)));
  root.querySelector("#play").addEventListener("click", () => {
    if (timer !== null) { clearInterval(timer); timer = null; return; }
    timer = setInterval(() => {
      const next = parseInt(slider.value, 10) + 1;
      if (next >= frames.length) { clearInterval(timer); timer = null; return; }
      show(next);
    }, 400);
  });
  show(0);
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("table.sortable").forEach(makeSortable);
  const replay = document.querySelector(".replay");
  if (replay) startReplay(replay);
});
