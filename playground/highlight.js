// `.sad` highlighting for the playground's editor: the states and rules of
// scalarlang/front/highlight.py's Pygments lexer (root, string, hole), with the token
// patterns build.py reads from scalarlang.language.lexicon (the grammar's terminals) and the
// built-in names. tokens() gives [text, class] pairs that cover the text exactly;
// tests/test_playground_highlight.py checks them against the Pygments lexer on every example.
//
// Classes, from highlight.py's TOKEN_STYLES: comment, keyword, constant, builtin, variable,
// function, kind, number, string, escape, interpol, operator, punctuation, error, plain.

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const words = (list) => `(?:${list.map(escapeRegExp).join("|")})\\b`;

export function makeLexer(lexicon) {
  const sticky = (source) => new RegExp(source, "y");
  const NAME = lexicon.name;
  const rules = {
    // In order, as in SadLexer: the first pattern that matches at the position wins.
    root: [
      [sticky("#[^\\n]*"), "comment"],
      [sticky('"'), "string", "push:string"],
      [sticky(`(let)([ \\t]+)(${NAME})`), ["keyword", "plain", "variable"]],
      [sticky(`(fn)([ \\t]+)(${NAME})`), ["keyword", "plain", "function"]],
      [sticky(`(expect)([ \\t]+)(${lexicon.kind})`), ["keyword", "plain", "kind"]],
      "expression",
      [sticky("[;:{}]"), "punctuation"],
    ],
    expression: [
      [sticky("\\n"), "plain"],
      [sticky("[ \\t\\f\\r]+"), "plain"],
      [sticky(words(lexicon.constants)), "constant"],
      [sticky(words(lexicon.keywords)), "keyword"],
      [sticky(words(lexicon.builtins)), "builtin"],
      [sticky(NAME), "name"],
      [sticky(lexicon.number), "number"],
      [sticky(lexicon.operator), "operator"],
      [sticky("[(),\\[\\]]"), "punctuation"],
    ],
    string: [
      [sticky('"'), "string", "pop"],
      [sticky('\\\\["\\\\n]'), "escape"],
      [sticky("\\{\\{|\\}\\}"), "escape"],
      [sticky("\\{"), "interpol", "push:hole"],
      [sticky("\\n"), "plain", "pop"],
      [sticky('[^"\\\\{}\\n]+'), "string"],
      [sticky("\\\\[^\\n]?|\\}"), "error"],
    ],
    hole: [
      [sticky("\\}"), "interpol", "pop"],
      [sticky("\\n"), "plain", "pop2"],
      [sticky('"'), "error", "pop2"],
      [sticky("#[^\\n]*"), "comment"],
      "expression",
    ],
  };
  const flat = (state) => rules[state].flatMap((rule) => (typeof rule === "string" ? flat(rule) : [rule]));
  const states = Object.fromEntries(Object.keys(rules).map((state) => [state, flat(state)]));

  return function tokens(text) {
    const out = [];
    const stack = ["root"];
    let at = 0;
    const add = (piece, kind) => {
      if (!piece) return;
      const last = out[out.length - 1];
      if (last && last[1] === kind) last[0] += piece;
      else out.push([piece, kind]);
    };
    while (at < text.length) {
      const state = states[stack[stack.length - 1]];
      let matched = false;
      for (const [pattern, kind, action] of state) {
        pattern.lastIndex = at;
        const match = pattern.exec(text);
        if (!match || match[0].length === 0) continue;
        if (Array.isArray(kind)) kind.forEach((k, i) => add(match[i + 1], k));
        else add(match[0], kind);
        at += match[0].length;
        if (action === "pop") stack.pop();
        else if (action === "pop2") stack.splice(-2, 2);
        else if (action && action.startsWith("push:")) stack.push(action.slice(5));
        if (!stack.length) stack.push("root");
        matched = true;
        break;
      }
      if (!matched) {
        // As Pygments: an unmatched character is an error token; a newline resets to root.
        if (text[at] === "\n") {
          stack.length = 1;
          add("\n", "plain");
        } else add(text[at], "error");
        at += 1;
      }
    }
    return out;
  };
}

const escapeHtml = (text) => text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

// The text as HTML: one span per token; `mark` ({start, end, title}, UTF-16 offsets) wraps
// that range (split at token edges) in <mark class="sad-error">.
export function highlightHtml(tokens, text, mark) {
  let html = "";
  let at = 0;
  const open = mark ? Math.max(0, Math.min(mark.start, text.length)) : -1;
  // An empty span (an error at the end of the text) still shows: one space wide.
  const close = mark ? Math.max(open, Math.min(mark.end, text.length)) : -1;
  let inside = false;
  const markTag = () =>
    `<mark class="sad-error" data-start="${mark.start}" data-end="${mark.end}"${mark.title ? ` title="${escapeHtml(mark.title)}"` : ""}>`;
  const emit = (piece, kind) => {
    if (!piece) return;
    html += kind === "plain" ? escapeHtml(piece) : `<span class="t-${kind}">${escapeHtml(piece)}</span>`;
  };
  for (const [piece, kind] of tokens) {
    let rest = piece;
    let position = at;
    while (rest) {
      if (mark && !inside && position <= open && open < position + rest.length) {
        emit(rest.slice(0, open - position), kind);
        rest = rest.slice(open - position);
        position = open;
        html += markTag();
        inside = true;
        if (close === open) {
          html += " </mark>";
          inside = false;
          mark = null;
          continue;
        }
      }
      if (inside && close <= position + rest.length) {
        emit(rest.slice(0, close - position), kind);
        html += "</mark>";
        rest = rest.slice(close - position);
        position = close;
        inside = false;
        mark = null;
        continue;
      }
      emit(rest, kind);
      position += rest.length;
      rest = "";
    }
    at += piece.length;
  }
  if (mark && !inside && open >= text.length) html += `${markTag()} </mark>`;
  else if (inside) html += "</mark>";
  return html;
}
