// The playground's output pane: the parts of a run (rich's HTML text, SVG pictures and charts, walk
// players) as they arrive, notices, and the same output as plain text (#output-text: what
// `scalarlang FILE.sad` prints). playground.js says when; this module says how they show.
const output = document.getElementById("output");
const outputText = document.getElementById("output-text");

export function clearOutput() {
  output.replaceChildren();
  outputText.textContent = "";
  output.dataset.state = "empty";
}

export function showPart(part) {
  outputText.append(part.text);
  if (part.kind === "text" && continueText(part.html)) return;
  const box = document.createElement("div");
  box.className = `part ${part.kind}`;
  box.innerHTML = part.kind === "picture" || part.kind === "chart" ? part.svg : part.html;
  if (part.kind === "walk") activateScripts(box);
  output.append(box);
}

// Text goes on in the text block shown last, when nothing came between: the worker sends a
// run's output in batches (one a tenth of a second), and where one batch ends says nothing.
function continueText(html) {
  const last = output.lastElementChild;
  const block = last && last.classList.contains("text") && last.children.length === 1 && last.firstElementChild;
  if (!block || block.tagName !== "PRE") return false;
  const template = document.createElement("template");
  template.innerHTML = html;
  const more = template.content;
  if (more.children.length !== 1 || more.firstElementChild.tagName !== "PRE" || more.textContent !== more.firstElementChild.textContent) return false;
  block.append(...more.firstElementChild.childNodes);
  return true;
}

// Scripts set with innerHTML do not run: the walk player's script is put back as a new one.
function activateScripts(box) {
  for (const old of box.querySelectorAll("script")) {
    if (old.type && old.type !== "text/javascript") continue;
    const script = document.createElement("script");
    script.textContent = old.textContent;
    old.replaceWith(script);
  }
}

export function addNotice(text) {
  const box = document.createElement("div");
  box.className = "part notice";
  box.textContent = text;
  output.append(box);
}

export function outputTextValue() {
  return outputText.textContent;
}
