// Parse a Mermaid diagram (path in argv[2]) with Mermaid's own parser; exit 0 when it is valid.
import { readFileSync } from "node:fs";
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const mermaid = (await import("mermaid")).default;
try {
  const result = await mermaid.parse(readFileSync(process.argv[2], "utf8"));
  console.log(JSON.stringify(result));
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
