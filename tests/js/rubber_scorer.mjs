// The browser's rubber scorer (api/static/js/rubber.js) on cases from a file, for
// tests/js/test_rubber_scorer.py:   node tests/js/rubber_scorer.mjs CASES.json
// Each case is {hand: {points, games, facts, ruleset}} (one hand scored) or {sitting:
// {start, hands, ruleset}} (a sitting's hands one after the other: the start each next
// hand gets, and the match value of the hands from 0-0). Prints one JSON line per case.
import { readFileSync } from "node:fs";

import { Sheet, matchValue, scoreHand } from "../../api/static/js/rubber.js";

const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
for (const c of cases) {
  if (c.hand) {
    const { points, games, facts, ruleset } = c.hand;
    process.stdout.write(JSON.stringify(scoreHand(points, games, facts, ruleset)) + "\n");
  } else {
    const { start, hands, ruleset } = c.sitting;
    let next = start;
    const starts = [];
    for (const facts of hands) {
      const sheet = new Sheet(next, ruleset);
      sheet.score(facts);
      next = sheet.nextStart();
      starts.push(next);
    }
    process.stdout.write(JSON.stringify({ starts, value: matchValue(hands, ruleset) }) + "\n");
  }
}
