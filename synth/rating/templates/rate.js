// A rating page: answers kept in localStorage as they change, one item shown at a time, and the finished items
// saved as JSON Lines (a download). The page reads and sends nothing else.
(function () {
  "use strict";
  const body = document.body;
  const protocol = body.dataset.protocol, rater = body.dataset.rater, round = body.dataset.round;
  const storageKey = "rating:" + round + ":" + rater;
  const items = Array.from(document.querySelectorAll("section.item"));
  const fields = Array.from(document.querySelectorAll("main input, main textarea"));
  let current = 0;

  function rating(item) {
    const answer = { round: round, rater: rater, item: item.dataset.item };
    if (protocol === "head-to-head") {
      answer.choices = {};
      for (const criterion of item.querySelectorAll("fieldset.criterion")) {
        const picked = criterion.querySelector("input:checked");
        if (!picked) return null;
        answer.choices[criterion.dataset.criterion] = picked.value;
      }
      return answer;
    }
    const verdict = item.querySelector("fieldset.verdict input:checked");
    if (!verdict) return null;
    answer.sound = verdict.value === "yes";
    answer.defects = {};
    answer.notes = {};
    for (const box of item.querySelectorAll("input.defect:checked")) {
      (answer.defects[box.value] = answer.defects[box.value] || []).push(Number(box.dataset.turn));
    }
    for (const note of item.querySelectorAll("textarea.note")) {
      if (note.value.trim()) answer.notes[note.dataset.turn] = note.value.trim();
    }
    return answer;
  }

  function keep() {
    const state = {};
    for (const field of fields) {
      if (field.type === "radio" || field.type === "checkbox") {
        if (field.checked) state[field.id] = true;
      } else if (field.value) {
        state[field.id] = field.value;
      }
    }
    localStorage.setItem(storageKey, JSON.stringify(state));
  }

  function restore() {
    let state = {};
    try { state = JSON.parse(localStorage.getItem(storageKey) || "{}"); } catch (error) { state = {}; }
    for (const field of fields) {
      if (!(field.id in state)) continue;
      if (field.type === "radio" || field.type === "checkbox") field.checked = true;
      else field.value = state[field.id];
    }
  }

  function refresh() {
    let done = 0;
    items.forEach(function (item, index) {
      const finished = rating(item) !== null;
      done += finished ? 1 : 0;
      item.classList.toggle("done", finished);
      item.hidden = index !== current;
    });
    document.getElementById("position").textContent = "item " + (current + 1) + " of " + items.length;
    document.getElementById("done-count").textContent = done + " of " + items.length + " done";
    document.getElementById("previous").disabled = current === 0;
    document.getElementById("next").disabled = current === items.length - 1;
  }

  function save() {
    const lines = items.map(rating).filter(Boolean).map(function (answer) { return JSON.stringify(answer) + "\n"; });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob(lines, { type: "application/x-ndjson" }));
    link.download = "ratings-" + rater + ".jsonl";
    document.body.appendChild(link);
    link.click();
    link.remove();
  }

  document.querySelector("main").addEventListener("input", function () { keep(); refresh(); });
  document.getElementById("previous").addEventListener("click", function () { current -= 1; refresh(); window.scrollTo(0, 0); });
  document.getElementById("next").addEventListener("click", function () { current += 1; refresh(); window.scrollTo(0, 0); });
  document.getElementById("save").addEventListener("click", save);
  restore();
  refresh();
})();
