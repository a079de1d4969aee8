// Runs a command (the browser tests) with one headless Chromium for all of it: every test file connects to it and
// opens a context of its own (tests/e2e/browser.mjs launchBrowser, through POSENC_BROWSER_WS), instead of starting a
// browser a file. Exits with the command's status.
//   node scripts/with-browser.mjs node --test tests/e2e/
import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';
import { BROWSER_ARGS, CHROMIUM } from '../tests/e2e/browser.mjs';

const [command, ...args] = process.argv.slice(2);
const server = await chromium.launchServer({ executablePath: CHROMIUM, headless: true, args: BROWSER_ARGS });
const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, POSENC_BROWSER_WS: server.wsEndpoint() } });
const status = await new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
await server.close();
process.exit(status);
