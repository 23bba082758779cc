// The links that take the same job to another calculator's page (calculator.html, guidekit.calc.Carry):
// each one's address holds this form's inputs that the other calculator shares, under its names, where
// they differ from its defaults, so the reader never types the job twice.

/** Point each of `root`'s carry links at its page with `inputs` (the form's, as the address holds them);
 *  `queryFor(values, defaults)` writes a query string as calculator.js writes its own address. */
export function updateCarryLinks(root, inputs, queryFor) {
  // A greyed-out field (`only_when`: a preset model's dimensions) says nothing the other page needs.
  const inactive = new Set([...root.querySelectorAll("[data-field]")]
    .filter((field) => field.querySelector("input:disabled, select:disabled"))
    .map((field) => field.dataset.field));
  for (const link of root.querySelectorAll("a[data-carry]")) {
    const { fields, defaults } = JSON.parse(link.dataset.carry);
    const values = {};
    for (const [mine, theirs] of Object.entries(fields)) {
      if (Object.hasOwn(inputs, mine) && !inactive.has(mine)) values[theirs] = inputs[mine];
    }
    const url = new URL(link.getAttribute("href"), location.href);
    url.search = queryFor(values, defaults);
    link.href = url.href;
  }
}
