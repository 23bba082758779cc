// Number fields in the locale's form ("200.000.000", "0,2" in Spanish) while the address and the
// calculators take one ASCII form ("200000000", "0.2"): a link works the same on every locale's page.
// The one home of delocalizing (the page needs it before the runtime is live); the build writes the
// defaults with guidekit.l10n's NumberFormat.input_text, which `localize` matches.

/** The locale's symbols, rendered by the build on the form (data-decimal, data-group, data-grouping). */
export function numberSymbols(form) {
  const [primary, secondary] = (form.dataset.grouping || "3 3").split(" ").map(Number);
  return { decimal: form.dataset.decimal || ".", group: form.dataset.group || ",", primary, secondary };
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// The zero of each digit run a reader's keyboard may type instead of ASCII: full-width (a Japanese
// IME), Arabic-Indic and Eastern Arabic-Indic (Arabic and Persian keyboards). Each run is 0-9 in order.
const DIGIT_ZEROS = [0xff10, 0x0660, 0x06f0];
// Signs with one meaning whatever the locale: the full-width forms of ASCII's, and the minus sign.
const SIGNS = { "．": ".", "，": ",", "＋": "+", "－": "-", "−": "-", "ｅ": "e", "Ｅ": "E" };
// Arabic's own decimal and group signs are the locale's decimal and group signs, whichever those are.
const ARABIC_DECIMAL = "\u066b", ARABIC_GROUP = "\u066c";
// Invisible direction marks an Arabic keyboard or a copied figure carries: no meaning in a number.
const MARKS = /[\u061c\u200e\u200f\u2066-\u2069]/g;

/** The reader's digits and signs in ASCII and the locale's own signs ("١٫٩٩" -> "1.99" on a page whose
 *  decimal sign is "."; "４０９６" -> "4096"). Nothing ambiguous is touched: a no-break space or an
 *  underscore stays, for the calculators to refuse. */
export function asciiDigits(text, { decimal, group }) {
  let out = "";
  for (const char of String(text).replace(MARKS, "")) {
    const code = char.codePointAt(0);
    const zero = DIGIT_ZEROS.find((z) => code >= z && code <= z + 9);
    if (zero !== undefined) out += String(code - zero);
    else if (char === ARABIC_DECIMAL) out += decimal;
    else if (char === ARABIC_GROUP) out += group;
    else out += SIGNS[char] ?? char;
  }
  return out;
}

/** Typed text -> the ASCII the calculators read, in any of the digit scripts above (`asciiDigits`).
 *  The locale's decimal sign is the decimal point; its
 *  group sign, where no decimal sign was typed, is ambiguous (Spanish "1.500" vs "0.5"): it groups
 *  when every one is followed by exactly three digits ("200.000.000", "1.500"), and a single one
 *  otherwise is the decimal point ("0.2", "1.25"). Anything else is left as typed, for the
 *  calculators to refuse with their own message. */
export function delocalize(text, { decimal, group }) {
  const trimmed = asciiDigits(String(text).trim(), { decimal, group });
  if (decimal === "." && !trimmed.includes(group)) return trimmed;
  const d = escape(decimal), g = escape(group);
  const groups = new RegExp(`^[+-]?\\d{1,3}(${g}\\d{3})+(${d}\\d*)?$`);
  if (groups.test(trimmed)) return trimmed.split(group).join("").replace(decimal, ".");
  const decimals = trimmed.split(decimal).length - 1;
  if (decimals === 1 && !trimmed.includes(group)) return trimmed.replace(decimal, ".");
  if (decimals === 0 && trimmed.split(group).length === 2 && new RegExp(`^[+-]?\\d*${g}\\d+$`).test(trimmed)) {
    return trimmed.replace(group, ".");
  }
  return trimmed;
}

/** Plain decimal digits of a number as JavaScript prints it, without an exponent: "1e-7" -> "0.0000001". */
function plainDigits(text) {
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/i.exec(text);
  if (!match) return text;
  const [, sign, whole, frac = "", exp] = match;
  const digits = whole + frac, point = whole.length + Number(exp);
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + "0".repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

const PRINTED = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

/** A value (a number, or text as the address or Python prints one) as the field shows it: every digit
 *  kept, grouped, the locale's decimal sign, no ".0". Other text (a refused "abc") is shown as written. */
export function localize(value, { decimal, group, primary, secondary }) {
  if (value === null || value === undefined) return "";   // an optional field left empty
  const text = String(value);
  if (!PRINTED.test(text)) return text;
  const number = Number(text);
  if (!Number.isFinite(number)) return text;
  const plain = plainDigits(String(number));   // shortest form: "3.0" -> "3", "0.10" -> "0.1"
  const negative = plain.startsWith("-");
  let [whole, frac = ""] = plain.replace("-", "").split(".");
  if (whole.length > primary) {
    const parts = [whole.slice(-primary)];
    let head = whole.slice(0, -primary);
    while (head.length > secondary) { parts.unshift(head.slice(-secondary)); head = head.slice(0, -secondary); }
    if (head) parts.unshift(head);
    whole = parts.join(group);
  }
  return (negative ? "-" : "") + whole + (frac ? decimal + frac : "");
}
