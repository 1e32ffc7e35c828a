// Where the playground keeps a program: in a share link's fragment, and in the browser's local
// storage (so that a reload shows what was typed). No server is involved in either.

// The fragment: #program=BASE64URL(UTF-8 text)[&file=NAME]. A fragment is never sent to a
// server, so a shared program stays between the people who have the link.
export function encodeProgram(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodeProgram(encoded) {
  const base64 = encoded.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "===".slice((base64.length + 3) % 4));
  return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

const STORAGE_KEY = "scalarlang-playground";

const isProgram = (value) => !!value && typeof value.text === "string" && typeof value.name === "string";

// What the page stored: {text, name, own, draft} (draft: {text, name} or null), or null when
// there is nothing (or nothing readable: storage turned off, another page's data).
export function readKept() {
  let kept;
  try {
    kept = JSON.parse(localStorage.getItem(STORAGE_KEY));
  } catch {
    return null;
  }
  if (!isProgram(kept)) return null;
  return { text: kept.text, name: kept.name, own: kept.own === true, draft: isProgram(kept.draft) ? { text: kept.draft.text, name: kept.draft.name } : null };
}

export function writeKept(kept) {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(kept));
  } catch {
    // Storage turned off or full: the program is not kept, and the page works on.
  }
}
