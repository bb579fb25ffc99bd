#!/usr/bin/env node
/*
 * flamegraph-check.js - opens a jevprof flame graph in headless Chromium and checks that it
 * works offline: it renders frames, fetches nothing, throws no script error, zooms to a frame
 * on click, highlights search matches, and Esc zooms back out; a screenshot of it (saved
 * beside the file as <file>.png) is not blank, and the frame's name is in the rendered text.
 * The subtitle gives the totals; the flame view puts the root at the bottom; the reversed view
 * shows the frame (which must have self weight) among the outermost; frames are coloured by
 * kind, with a legend, and the frame (hot, so compiled) is not labelled interpreted; with a kind
 * (a legend label: "VM", "native code (C/C++)"), the frame is of that kind and the legend names it.
 *
 *   node tools/flamegraph-check.js <jevprof-flame.html> <a frame name in it> [kind]
 *
 * Prints one line per check and exits 0 when all pass.  Talks to Chromium over
 * --remote-debugging-pipe (the DevTools protocol on file descriptors 3 and 4), so it needs
 * nothing but node and chromium.  CHROMIUM names another browser binary.
 */
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const zlib = require('zlib');

const [file, frameName, kindLabel] = process.argv.slice(2);
if (!file || !frameName) {
  console.error('usage: node tools/flamegraph-check.js <flame.html> <frame name> [kind]');
  process.exit(2);
}
const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'jevprof-chromium-'));
const browser = spawn(process.env.CHROMIUM || 'chromium',
  ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--no-default-browser-check',
   '--remote-debugging-pipe', `--user-data-dir=${profileDir}`, 'about:blank'],
  { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
const toBrowser = browser.stdio[3], fromBrowser = browser.stdio[4];

let nextId = 0, received = '';
const replies = new Map(), waiters = [];
const requests = [], scriptErrors = [];

fromBrowser.on('data', (chunk) => {
  received += chunk;
  for (let end; (end = received.indexOf('\0')) >= 0; received = received.slice(end + 1)) {
    const message = JSON.parse(received.slice(0, end));
    if (message.id !== undefined && replies.has(message.id)) {
      replies.get(message.id)(message);
      replies.delete(message.id);
      continue;
    }
    if (message.method === 'Network.requestWillBeSent') requests.push(message.params.request.url);
    if (message.method === 'Runtime.exceptionThrown') scriptErrors.push(message.params.exceptionDetails.text);
    if (message.method === 'Runtime.consoleAPICalled' && message.params.type === 'error')
      scriptErrors.push(message.params.args.map((a) => a.value).join(' '));
    for (let i = waiters.length - 1; i >= 0; i--)
      if (waiters[i].method === message.method) waiters.splice(i, 1)[0].resolve(message);
  }
});

function send(method, params = {}, sessionId) {
  return new Promise((resolve, reject) => {
    const id = ++nextId;
    replies.set(id, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
    toBrowser.write(JSON.stringify(sessionId ? { id, method, params, sessionId } : { id, method, params }) + '\0');
  });
}

function waitFor(method) {
  return new Promise((resolve) => waiters.push({ method, resolve }));
}

/* Distinct byte values in a PNG's image data: a blank page has a handful, a drawing many. */
function pngVariety(png) {
  const idat = [];
  for (let at = 8; at + 8 <= png.length;) {
    const length = png.readUInt32BE(at), type = png.toString('ascii', at + 4, at + 8);
    if (type === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  return new Set(zlib.inflateSync(Buffer.concat(idat))).size;
}

let failures = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures++;
}

async function main() {
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  const page = (method, params) => send(method, params, sessionId);
  await page('Runtime.enable');
  await page('Network.enable');
  await page('Page.enable');
  await page('Emulation.setDeviceMetricsOverride', { width: 1200, height: 800, deviceScaleFactor: 1, mobile: false });
  const loaded = waitFor('Page.loadEventFired');
  await page('Page.navigate', { url: 'file://' + path.resolve(file) });
  await loaded;
  const evaluate = async (expression) =>
    (await page('Runtime.evaluate', { expression, returnByValue: true })).result.value;

  const name = JSON.stringify(frameName);
  const shot = Buffer.from((await page('Page.captureScreenshot', { format: 'png' })).data, 'base64');
  fs.writeFileSync(file + '.png', shot);
  const variety = pngVariety(shot);
  check(variety > 32, `the screenshot (${file}.png) is not blank: ${variety} distinct byte values`);
  check(await evaluate(`document.body.innerText.includes(${name})`), `the rendered page shows ${frameName}`);
  check(await evaluate(`document.querySelectorAll('.f').length > 1`), 'frames are drawn');
  check(await evaluate(`[...document.querySelectorAll('.f')].some(e => e.title.startsWith(${name} + '  '))`),
        `a frame is named ${frameName}`);
  const width = await evaluate(`document.getElementById('chart').clientWidth`);
  await evaluate(`[...document.querySelectorAll('.f')].find(e => e.title.startsWith(${name} + '  ')).click()`);
  check(await evaluate(`[...document.querySelectorAll('.f:not(.below)')].some(e =>
          e.title.startsWith(${name} + '  ') && parseFloat(e.style.width) === ${width})`),
        'clicking it zooms to it: it fills the width');
  check(await evaluate(`document.querySelectorAll('.f.below').length > 0`), 'its callers stay below it');
  await evaluate(`document.onkeydown({key: 'Escape'})`);
  check(await evaluate(`document.querySelectorAll('.f.below').length === 0`), 'Esc zooms back out');
  await evaluate(`(() => { const s = document.getElementById('search'); s.value = ${name};
                           s.dispatchEvent(new Event('input')); })()`);
  check(await evaluate(`document.querySelectorAll('.f.match').length > 0`), 'searching highlights it');
  check(/^Matched: [0-9.]+%$/.test(await evaluate(`document.getElementById('matched').textContent`)),
        'searching shows the matched share');
  check(/ in all/.test(await evaluate(`document.getElementById('subtitle').textContent`)),
        'the subtitle gives the profile\'s total');
  check(await evaluate(`document.getElementById('legend').children.length > 0 &&
          DATA.kinds.some(k => k > 0)`), 'frames have kinds, named in a legend');
  check(await evaluate(`[...document.querySelectorAll('.f')].every(e => !e.title.startsWith(${name} + '  ') ||
          !e.title.endsWith(', interpreted'))`), 'it is not labelled interpreted (no sample said so)');
  if (kindLabel) {
    const kind = JSON.stringify(kindLabel);
    check(await evaluate(`[...document.getElementById('legend').children].some(e => e.textContent === ${kind})`),
          `the legend names the kind ${kindLabel}`);
    check(await evaluate(`[...document.querySelectorAll('.f')].some(e => e.title.startsWith(${name} + '  ') &&
            e.title.endsWith(', ' + ${kind}))`), `it is labelled ${kindLabel}`);
  }
  const setView = (view) => evaluate(`(() => { const v = document.getElementById('view'); v.value = '${view}';
                                               v.dispatchEvent(new Event('change')); })()`);
  await setView('flame');
  check(await evaluate(`(() => { const f = [...document.querySelectorAll('.f')];
          const all = f.find(e => e.title.startsWith('all  ')), lowest = Math.max(...f.map(e => parseFloat(e.style.top)));
          return all && parseFloat(all.style.top) === lowest && lowest > 0; })()`),
        'the flame view puts the root at the bottom');
  await setView('reversed');
  check(await evaluate(`[...document.querySelectorAll('.f')].some(e =>
          e.title.startsWith(${name} + '  ') && parseFloat(e.style.top) === 18)`),
        `the reversed view shows ${frameName} among the outermost frames`);
  await setView('icicle');
  check(await evaluate(`parseFloat([...document.querySelectorAll('.f')].find(e => e.title.startsWith('all  ')).style.top) === 0`),
        'the icicle view puts the root on top again');
  const outside = requests.filter((url) => !url.startsWith('file:') && !url.startsWith('data:') && url !== 'about:blank');
  check(outside.length === 0, `nothing fetched from outside the file${outside.length ? ': ' + outside.join(' ') : ''}`);
  check(scriptErrors.length === 0, `no script errors${scriptErrors.length ? ': ' + scriptErrors.join('; ') : ''}`);
}

const timeout = setTimeout(() => { console.log('FAIL timed out'); finish(1); }, 60000);
/* The profile directory goes once the browser has stopped writing to it. */
function finish(code) {
  clearTimeout(timeout);
  browser.on('exit', () => {
    try {
      fs.rmSync(profileDir, { recursive: true, force: true, maxRetries: 5 });
    } catch (e) {
      /* Chromium's helper processes may still be writing there; a temporary directory may stay. */
    }
    process.exit(code);
  });
  browser.kill();
}
main().then(() => finish(failures ? 1 : 0), (e) => { console.log(`FAIL ${e.message}`); finish(1); });
