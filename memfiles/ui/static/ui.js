// mem ui: the only script of the viewer (served from the package; the CSP allows no other).
// It reads stored text only through textContent and data attributes, never as HTML.
"use strict";

function confirmForms() {
  for (const form of document.querySelectorAll("form[data-confirm]")) {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }
}

function isoDay(date) {
  return date.toISOString().slice(0, 10);
}

function asOfSlider() {
  const slider = document.getElementById("asof");
  const svg = document.getElementById("timeline");
  if (!slider || !svg) return;
  const first = new Date(svg.dataset.first + "T00:00:00Z");
  const days = Math.max(Number(svg.dataset.days), 1);
  const width = Number(svg.dataset.width);
  const line = document.getElementById("asof-line");
  const dateInput = document.getElementById("asof-date");
  const dayOut = document.getElementById("asof-day");
  const valuesOut = document.getElementById("asof-values");
  const bars = Array.from(svg.querySelectorAll("g.bar"));

  function show(offset) {
    const on = isoDay(new Date(first.getTime() + offset * 86400000));
    const x = String(Math.round((offset / days) * width * 10) / 10);
    line.setAttribute("x1", x);
    line.setAttribute("x2", x);
    dateInput.value = on;
    dayOut.textContent = on;
    const values = [];
    for (const bar of bars) {
      const from = bar.dataset.from;
      const to = bar.dataset.to;
      const gone = bar.classList.contains("proposed") || bar.classList.contains("retracted");
      const held = !gone && from <= on && (to === "" || on < to);
      bar.classList.toggle("believed", held);
      if (held) values.push(bar.querySelector("text").textContent);
    }
    valuesOut.textContent = values.length ? values.join(" | ") : "nothing";
  }

  slider.addEventListener("input", () => show(Number(slider.value)));
  dateInput.addEventListener("change", () => {
    const picked = new Date(dateInput.value + "T00:00:00Z");
    if (!Number.isNaN(picked.getTime())) {
      const offset = Math.round((picked.getTime() - first.getTime()) / 86400000);
      slider.value = String(Math.min(Math.max(offset, 0), days));
      show(Number(slider.value));
    }
  });
}

document.addEventListener("DOMContentLoaded", () => {
  confirmForms();
  asOfSlider();
});
