// Canonical JSON: RFC 8785 (JCS) restricted to integers, byte for byte as
// audit/log/events.py canonical_json writes it. Objects' keys sorted by UTF-16 code
// units, no whitespace, strings escaped as JSON.stringify does (which RFC 8785 adopts),
// integers in ±(2^53 - 1); fractions, non-finite numbers and lone surrogates are refused.

import { VerifyError, isWellFormedText, utf8 } from "./bytes.js";

export const MAX_SAFE_INT = Number.MAX_SAFE_INTEGER;

function encode(value, out, path) {
  if (value === null) {
    out.push("null");
  } else if (value === true) {
    out.push("true");
  } else if (value === false) {
    out.push("false");
  } else if (typeof value === "number") {
    if (!Number.isInteger(value)) {
      throw new VerifyError("NOT_CANONICAL", `${path}: numbers must be integers in canonical JSON`);
    }
    if (Math.abs(value) > MAX_SAFE_INT) {
      throw new VerifyError("NOT_CANONICAL", `${path}: integer outside the I-JSON range`);
    }
    out.push(String(value === 0 ? 0 : value));
  } else if (typeof value === "string") {
    if (!isWellFormedText(value)) {
      throw new VerifyError("NOT_CANONICAL", `${path}: string contains a lone surrogate`);
    }
    out.push(JSON.stringify(value));
  } else if (Array.isArray(value)) {
    out.push("[");
    value.forEach((item, i) => {
      if (i) out.push(",");
      encode(item, out, `${path}[${i}]`);
    });
    out.push("]");
  } else if (typeof value === "object") {
    const keys = Object.keys(value).sort(); // default sort: UTF-16 code units
    out.push("{");
    keys.forEach((k, i) => {
      if (i) out.push(",");
      encode(k, out, path);
      out.push(":");
      encode(value[k], out, `${path}.${k}`);
    });
    out.push("}");
  } else {
    throw new VerifyError("NOT_CANONICAL", `${path}: ${typeof value} is not a JSON value`);
  }
}

/** The canonical text of a JSON value. */
export function canonicalText(value) {
  const out = [];
  encode(value, out, "$");
  return out.join("");
}

/** The canonical UTF-8 bytes of a JSON value. */
export function canonicalJson(value) {
  return utf8(canonicalText(value));
}
