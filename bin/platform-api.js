#!/usr/bin/env node
// `npx platform-api …` runs the compiled CLI; `npm run build` (or `npm start`) makes dist/.
import('../dist/main.js');
