// The entry of api/static/vendor/bls.js, the one third-party module the browser's
// verifier loads (docs/browser.md, "Third-party code"): @noble/curves' BLS12-381 (MIT),
// pinned in package.json and package-lock.json and bundled by esbuild at build time
// (`make`), never fetched at run time. api/static/js/drand.js is its only user.
export { bls12_381 } from "@noble/curves/bls12-381.js";
