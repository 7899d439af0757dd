(function () {
  "use strict";
  const items = Array.from(document.querySelectorAll(".dialogue-item"));
  const articles = new Map(Array.from(document.querySelectorAll("article.dialogue")).map((a) => [a.id, a]));
  const texts = new Map(Array.from(articles, ([id, a]) => [id, a.textContent.toLowerCase()]));
  const search = document.getElementById("search");
  const outcome = document.getElementById("outcome");
  const status = document.getElementById("status");
  const maxTurns = document.getElementById("max-turns");
  const count = document.getElementById("shown-count");

  function matches(item) {
    const terms = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    const text = texts.get(item.dataset.id) || "";
    if (!terms.every((term) => text.includes(term))) return false;
    const wanted = outcome.value;
    if (wanted.startsWith("ended:") ? item.dataset.ended !== wanted.slice(6) : wanted && item.dataset.outcome !== wanted) return false;
    if (status && status.value && item.dataset.status !== status.value) return false;
    if (maxTurns.value !== "") {
      if (item.dataset.turns === "" || Number(item.dataset.turns) > Number(maxTurns.value)) return false;
    }
    return true;
  }

  function apply() {
    let shown = 0;
    for (const item of items) {
      item.hidden = !matches(item);
      if (!item.hidden) shown += 1;
    }
    count.textContent = shown + " of " + items.length + " shown";
  }

  function open(id) {
    if (!articles.has(id)) return;
    for (const [key, article] of articles) article.hidden = key !== id;
    for (const item of items) item.classList.toggle("active", item.dataset.id === id);
    document.getElementById("placeholder").hidden = true;
    const think = document.getElementById("show-think").checked;
    articles.get(id).querySelectorAll("details.think").forEach((d) => { d.open = think; });
  }

  for (const input of [search, outcome, status, maxTurns]) if (input) input.addEventListener("input", apply);
  items.forEach((item) => item.addEventListener("click", () => { open(item.dataset.id); history.replaceState(null, "", "#" + item.dataset.id); }));
  document.querySelectorAll("a.open-dialogue").forEach((link) => link.addEventListener("click", (event) => {
    event.preventDefault();
    open(link.dataset.id);
    document.getElementById("dialogues").scrollIntoView();
  }));
  document.getElementById("show-think").addEventListener("change", (event) => {
    document.querySelectorAll("details.think").forEach((d) => { d.open = event.target.checked; });
  });
  apply();
  const fromHash = decodeURIComponent(location.hash.slice(1));
  open(articles.has(fromHash) ? fromHash : (items[0] && items[0].dataset.id));
})();
