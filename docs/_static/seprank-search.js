/* Search snippets in plain text: the page's TeX source (\(...\), \[...\], $$...$$, which
   MathJax renders on the page itself) is shown as readable text, e.g. "sep ≤ Σ_k min(b_k,
   a_{D-k})" instead of "\operatorname{sep} \le \sum_k \min(b_k, a_{D-k})". */
(function () {
  const WORDS = {
    le: "≤", leq: "≤", ge: "≥", geq: "≥", ne: "≠", neq: "≠", sum: "Σ", prod: "Π",
    cdot: "·", times: "×", infty: "∞", to: "→", ll: "≪", gg: "≫", sim: "~", approx: "≈",
    ldots: "…", dots: "…", cdots: "…", in: "∈", top: "T", alpha: "α", beta: "β",
    gamma: "γ", delta: "δ", epsilon: "ε", lambda: "λ", mu: "μ", pi: "π", sigma: "σ",
    lfloor: "⌊", rfloor: "⌋", lceil: "⌈", rceil: "⌉", partial: "∂",
  };

  function plain(tex) {
    return tex
      .replace(/\\(operatorname|mathrm|mathbf|mathit|text|textrm)\{([^}]*)\}/g, "$2")
      .replace(/\\binom\{([^}]*)\}\{([^}]*)\}/g, "C($1, $2)")
      .replace(/\\frac\{([^}]*)\}\{([^}]*)\}/g, "($1)/($2)")
      .replace(/\\([A-Za-z]+)/g, (m, w) => (w in WORDS ? WORDS[w] : w))
      .replace(/\\[,;:! ]/g, " ")
      .replace(/\\([{}])/g, "$1")
      .replace(/\\\\/g, " ")
      .replace(/[{}]/g, "")
      .replace(/\s+/g, " ")
      .trim();
  }

  function untex(text) {
    return text
      .replace(/\$\$([\s\S]*?)\$\$/g, (m, t) => plain(t))
      .replace(/\\\[([\s\S]*?)\\\]/g, (m, t) => plain(t))
      .replace(/\\\(([\s\S]*?)\\\)/g, (m, t) => plain(t));
  }

  function patch() {
    if (typeof Search === "undefined" || !Search.htmlToText || Search._seprankPlain) return;
    const original = Search.htmlToText;
    Search.htmlToText = (html, anchor) => untex(original(html, anchor));
    Search._seprankPlain = true;
  }

  patch();
  document.addEventListener("DOMContentLoaded", patch);
  window.seprankUntex = untex;  // for the site's tests
})();
