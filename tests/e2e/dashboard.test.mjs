// The dashboard in a real browser (headless Chromium through
// playwright-core), used as an account owner would, with the keyboard and
// the mouse, through the pages' visible labels: signing in, creating a key
// that is shown once, calling the API with it through the official openai
// client, finding that request's tokens and exact cost on the usage page
// and in its CSV export, the overview and the limits, adding a billing
// alert, changing a key's limits, revoking the key, another account's key
// answering 404, Tab reaching every control of every page with a visible
// outline, every page fitting a phone and a key's whole life without
// JavaScript, and signing out; then, as an operator, the accounts and
// providers pages: creating an account, setting an account's limits and
// models, disabling it (its keys are refused) and enabling it again. The
// gateway is `serve --dev`, whose mock-chat model costs
// $1 per million prompt tokens and $2 per million completion tokens.
// The tests run in order, each on the state the previous ones left.
// Every page visited is saved as a full-page PNG in output/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { startDevGateway } from './harness.mjs';
import { launchChromium, screenshots, until } from './browser.mjs';

const OWNER = 'owner@example.com';
const OPERATOR = 'ops@example.com';
const PASSWORD = 'correct horse battery staple';
const KEY_NAME = 'CI pipeline (e2e)';
const KEY_SHAPE = /sk-switchyard-[A-Za-z0-9]{32}/;
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

const shot = screenshots(join(import.meta.dirname, 'output', 'screenshots'));

let gw;
let browser;
let page;
// What the tests below find out and the later ones use.
const key = { secret: '', id: '', hint: '' };
let usage; // the API's usage of the one request made with the key

before(async () => {
  gw = await startDevGateway(({ run, runWithStdin }) => {
    runWithStdin(PASSWORD + '\n', 'accounts', 'create', '--email', OWNER, '--password-stdin');
    runWithStdin(PASSWORD + '\n', 'accounts', 'create', '--email', OPERATOR, '--password-stdin', '--admin');
    run('accounts', 'create', '--email', 'other@example.com');
    const other = JSON.parse(run('keys', 'create', '--account', 'other@example.com', '--name', 'Payroll bot of another team', '--json'));
    return { other };
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: DESKTOP, colorScheme: 'light' });
  page.setDefaultTimeout(10_000);
  page.setDefaultNavigationTimeout(15_000);
});

after(async () => {
  await browser?.close();
  await gw?.stop();
});

const url = (path) => gw.url + path;
const heading = () => page.getByRole('heading', { level: 1 });
const navLink = (name) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
const api = (apiKey) => new OpenAI({ baseURL: url('/v1'), apiKey, maxRetries: 0 });

// groupDigits formats n as the dashboard's num does: 1234 → "1,234".
const groupDigits = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

// usd formats pico-dollars as usd.Amount.String does: 12 decimal places
// without trailing zeros, but at least 2 (the usage table and CSV);
// dollars adds the "$" of Amount.Dollars (the other pages).
function usd(pico) {
  const scale = 10n ** 12n;
  const frac = (pico % scale).toString().padStart(12, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${pico / scale}.${frac}`;
}
const dollars = (pico) => '$' + usd(pico);

// The request's exact cost on mock-chat, in pico-dollars: $1 and $2 per
// million tokens are 1,000,000 and 2,000,000 pico-dollars per token.
const cost = () => BigInt(usage.prompt_tokens) * 1_000_000n + BigInt(usage.completion_tokens) * 2_000_000n;

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// row is the table row whose header cell is named name, in within (by
// default the page); cells reads the texts of its data cells.
const row = (name, within = page) => within.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
const cells = (r) => r.getByRole('cell').allInnerTexts().then((texts) => texts.map((t) => t.trim()));

// assertNoKey asserts that the page shows neither the new key's secret
// nor any other full API key; what names the page in the message.
async function assertNoKey(what) {
  const html = await page.content();
  assert.ok(!html.includes(key.secret), `${what} shows the new key's secret`);
  assert.doesNotMatch(html, KEY_SHAPE, `${what} shows a full API key`);
}

test('a wrong password shows an error; the right one lands on the overview', async () => {
  await page.goto(url('/dashboard'));
  await page.waitForURL(url('/dashboard/login?next=%2Fdashboard'));
  assert.equal(await heading().innerText(), 'Sign in');
  await shot(page, 'login');

  await page.getByLabel('Email').fill(OWNER);
  await page.getByLabel('Password', { exact: true }).fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').waitFor();
  assert.equal(await page.getByRole('alert').innerText(), 'The email or password is not correct.');
  assert.equal(await page.getByLabel('Email').inputValue(), OWNER, 'the form keeps the email');
  assert.equal(await page.getByLabel('Password', { exact: true }).inputValue(), '', 'the form does not keep the password');
  await shot(page, 'login-error');

  // With the keyboard this time: type the password, then Enter.
  await page.getByLabel('Password', { exact: true }).click();
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await page.waitForURL(url('/dashboard'));
  assert.equal(await heading().innerText(), 'Overview');
  assert.ok(await page.getByText(OWNER).isVisible(), 'the header shows who is signed in');
});

test('a new key is shown once, with a warning, and never again', async () => {
  await navLink('API keys').click();
  await page.waitForURL(url('/dashboard/keys'));
  await page.getByRole('link', { name: 'Create an API key' }).click();
  await page.waitForURL(url('/dashboard/keys/new'));
  await page.getByLabel('Name', { exact: true }).fill(KEY_NAME);
  await page.getByLabel('Requests per minute').fill('120');
  await page.getByLabel('Monthly budget (USD)').fill('10');
  await shot(page, 'key-new');

  const answer = page.waitForResponse((r) => r.request().method() === 'POST' && r.url() === url('/dashboard/keys'));
  await page.getByRole('button', { name: 'Create key' }).click();
  assert.equal((await answer).headers()['cache-control'], 'no-store', 'the page with the key may not be cached');
  await heading().filter({ hasText: 'Your new API key' }).waitFor();

  key.secret = await page.getByLabel(`API key “${KEY_NAME}”`).inputValue();
  assert.match(key.secret, /^sk-switchyard-[A-Za-z0-9]{32}$/);
  assert.match(await page.getByRole('alert').innerText(), /Copy this key now\.\s+It cannot be shown again/);
  const details = page.getByRole('table', { name: 'Details of the key' });
  const detail = async (name) => (await details.getByRole('row', { name }).getByRole('cell').innerText()).trim();
  key.id = await detail('ID');
  key.hint = await detail('Shown in lists as');
  assert.match(key.id, /^key_\w+$/);
  assert.equal(key.hint, 'sk-switchyard-…' + key.secret.slice(-4));
  assert.equal(await detail('Requests per minute'), '120');
  assert.equal(await detail('Monthly budget'), '$10.00');

  // No key-shaped string may end up in a picture: hide it before the shot.
  await page.getByLabel(`API key “${KEY_NAME}”`).evaluate((input) => { input.value = '•'.repeat(46); });
  await shot(page, 'key-created');

  await page.getByRole('link', { name: 'I have copied it: back to API keys' }).click();
  await heading().filter({ hasText: 'API keys' }).waitFor();
  assert.equal(page.url(), url('/dashboard/keys'));
  const listed = row(KEY_NAME);
  assert.deepEqual((await cells(listed)).slice(0, 1), [key.hint], 'the list shows the hint');
  await assertNoKey('the keys list');
  await shot(page, 'keys');

  // Back must not bring the secret again. The list has the URL the form
  // was posted to, so Chromium replaced the key's page in the history
  // with it: Back leads to the form.
  await goBackToNoKey();
});

// goBackToNoKey goes Back and asserts that the page it leads to shows no
// key. A page answering a POST can come back only from a cache, and
// no-store keeps it out of the HTTP cache: Chromium then shows an error
// (ERR_CACHE_MISS) rather than send the form again. (Playwright runs
// Chromium without its back/forward cache, so that one is not tested.)
async function goBackToNoKey() {
  const from = page.url();
  await page.goBack().catch((err) => assert.match(err.message, /ERR_CACHE_MISS/));
  await page.waitForURL((u) => u.href !== from);
  await assertNoKey(`the page Back leads to (${page.url()})`);
}

test('Back to a new key\'s page from another page does not show the key', async () => {
  await page.goto(url('/dashboard/keys/new'));
  await page.getByLabel('Name', { exact: true }).fill('Back button check');
  await page.getByRole('button', { name: 'Create key' }).click();
  assert.match(await page.getByLabel('API key “Back button check”').inputValue(), KEY_SHAPE);
  await navLink('Overview').click();
  await heading().filter({ hasText: 'Overview' }).waitFor();
  await goBackToNoKey();
  await page.goto(url('/dashboard'));
});

test('the API accepts the new key (official openai client)', async () => {
  assert.ok(key.secret, 'needs the key of the test before');
  const r = await api(key.secret).chat.completions.create({
    model: 'mock-chat',
    messages: [{ role: 'user', content: 'Hello from the dashboard test' }],
  });
  assert.equal(r.object, 'chat.completion');
  assert.ok(r.choices[0].message.content.length > 0);
  usage = r.usage;
  assert.ok(usage.prompt_tokens > 0 && usage.completion_tokens > 0, `usage ${JSON.stringify(usage)}`);
  assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
});

// usageRow opens the usage page grouped by `by` through the form, and
// reloads it until the row named name appears (usage is written in
// batches); it returns the row's data cells.
async function usageRow(by, name) {
  await navLink('Usage').click();
  await heading().filter({ hasText: 'Usage and cost' }).waitFor();
  await page.getByLabel('Group by').selectOption({ label: by });
  await page.getByRole('button', { name: 'Show' }).click();
  await page.waitForURL((u) => u.searchParams.get('by') === by.toLowerCase());
  const r = page.getByRole('table').getByRole('row').filter({ hasText: name });
  await until(async () => {
    if (await r.count() > 0) return true;
    await page.reload();
    return false;
  }, { timeout: 15_000, interval: 250, message: `the usage page by ${by} shows no row for ${name}` });
  return cells(r);
}

test('the usage page shows the request, its tokens and its exact cost, by model and by key', async () => {
  assert.ok(usage, 'needs the request of the test before');
  // Requests, errors, prompt, completion and total tokens, cost in USD.
  const want = ['1', '0', groupDigits(usage.prompt_tokens), groupDigits(usage.completion_tokens),
    groupDigits(usage.total_tokens), usd(cost())];

  assert.deepEqual(await usageRow('Model', 'mock-chat'), want, 'by model');
  assert.ok(await page.getByRole('img', { name: /^Cost per model/ }).isVisible(), 'the chart is shown');
  await shot(page, 'usage');

  // The CSV export has the same row, in the numbers of `switchyard usage --csv`.
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Download CSV' }).click();
  const csv = readFileSync(await (await download).path(), 'utf8').trim().split(/\r?\n/);
  assert.deepEqual(csv, [
    'model,requests,errors,prompt_tokens,completion_tokens,total_tokens,cost_usd',
    ['mock-chat', 1, 0, usage.prompt_tokens, usage.completion_tokens, usage.total_tokens, usd(cost())].join(','),
  ]);

  assert.deepEqual(await usageRow('Key', key.id), want, 'by key');
  assert.match(await page.getByRole('table').getByRole('row').filter({ hasText: key.id }).getByRole('rowheader').innerText(),
    new RegExp(`^${escape(KEY_NAME)}\\s+${key.id}$`));
  await shot(page, 'usage-by-key');
});

test('the overview shows this month\'s spend, on a desktop and on a phone', async () => {
  assert.ok(usage, 'needs the request of the tests before');
  await navLink('Overview').click();
  await heading().filter({ hasText: 'Overview' }).waitFor();
  // Requests, tokens and cost.
  const want = ['1', groupDigits(usage.total_tokens), dollars(cost())];
  // The health tables of the last 24 hours have a row of mock-chat too.
  assert.deepEqual(await cells(row('mock-chat', page.getByRole('region', { name: 'Top models' }))), want, 'top models');
  assert.deepEqual(await cells(row(KEY_NAME, page.getByRole('region', { name: 'Top keys' }))), want, 'top keys');
  await shot(page, 'overview');

  // Loaded again at the phone's size, as a phone would: a page resized
  // after loading may not repaint its scrolled tables before the shot.
  await page.setViewportSize(PHONE);
  try {
    await page.reload();
    await heading().filter({ hasText: 'Overview' }).waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= PHONE.width, `the overview is ${width} px wide on a ${PHONE.width} px phone`);
    await shot(page, 'overview-phone');
  } finally {
    await page.setViewportSize(DESKTOP);
  }
});

test('the limits page shows the key\'s limits and spend', async () => {
  await navLink('Limits').click();
  await heading().filter({ hasText: 'Limits' }).waitFor();
  // Requests and tokens a minute (each with what is in use now, which
  // depends on timing), monthly budget, spent this month.
  const [rpm, , budget, spent] = await cells(row(`Key ${KEY_NAME} ${key.hint}`));
  assert.equal(rpm.split('\n')[0], '120');
  assert.equal(budget, '$10.00');
  assert.match(spent, new RegExp(`^${escape(dollars(cost()))}\\s+0%$`), 'spent by the key, 0% of its budget');
  const account = await cells(row('This account'));
  assert.deepEqual(account.slice(2, 4), ['None', dollars(cost())], 'the account\'s budget and spend');
  await shot(page, 'limits');
});

test("a key's limits are changed on its limits page", async () => {
  await navLink('API keys').click();
  await page.getByRole('link', { name: 'Limits of Back button check' }).click();
  await heading().filter({ hasText: 'Limits of Back button check' }).waitFor();
  await page.getByLabel('Requests per minute').fill('not a number');
  await page.getByRole('button', { name: 'Save limits' }).click();
  await page.getByRole('alert').filter({ hasText: 'Please correct the fields marked below.' }).waitFor();
  assert.match(await page.getByText(/^Enter a whole number/).innerText(), /leave it empty for the default/);
  await page.getByLabel('Requests per minute').fill('30');
  await page.getByLabel('Tokens per minute').fill('20000');
  await shot(page, 'key-limits');
  await page.getByRole('button', { name: 'Save limits' }).click();
  await page.getByRole('status').filter({ hasText: 'The limits were saved.' }).waitFor();
  assert.equal(page.url(), url('/dashboard/limits?msg=limits-saved'));
  const [rpm, tpm] = await cells(page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^Key Back button check/ }) }));
  assert.equal(rpm.split('\n')[0], '30');
  assert.equal(tpm.split('\n')[0], '20,000');
});

test('a billing alert is added and listed', async () => {
  await navLink('Alerts').click();
  await heading().filter({ hasText: 'Billing alerts' }).waitFor();
  assert.ok(await page.getByText('No alerts yet.').isVisible());
  await page.getByLabel('Threshold (USD)').fill('5');
  await page.getByLabel('Email (optional)').fill('billing@example.com');
  await page.getByRole('button', { name: 'Add alert' }).click();
  await page.getByRole('status').filter({ hasText: 'The alert was added.' }).waitFor();
  const rules = page.getByRole('table').first().getByRole('row').filter({ hasText: '$5.00' });
  assert.deepEqual((await cells(rules)).slice(0, 2), ['$5.00', 'Email billing@example.com']);
  await shot(page, 'alerts');
});

test('the password page asks for the current password and the new one twice', async () => {
  await page.getByRole('link', { name: 'Password', exact: true }).click();
  await heading().filter({ hasText: 'Change password' }).waitFor();
  for (const label of ['Current password', 'New password', 'New password again']) {
    assert.ok(await page.getByLabel(label, { exact: true }).isVisible(), label);
  }
  await shot(page, 'password');
});

// tabThrough opens path and presses Tab until focus has been on every
// control (a date field takes a Tab for each of its parts); it returns the visible controls Tab never reached and those that
// showed no focus outline when it did.
async function tabThrough(path) {
  await page.goto(url(path));
  const count = await page.evaluate(() => {
    const controls = [...document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, [tabindex]:not([tabindex="-1"])')]
      .filter((el) => !el.disabled && el.getClientRects().length > 0);
    controls.forEach((el, i) => el.setAttribute('data-tab', String(i)));
    return controls.length;
  });
  const reached = new Set();
  const unmarked = [];
  for (let i = 0; i < 4 * count && reached.size < count; i++) {
    await page.keyboard.press('Tab');
    const f = await page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      const s = getComputedStyle(el);
      return { tab: el.getAttribute('data-tab'), html: el.outerHTML.slice(0, 100),
        outlined: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2 };
    });
    if (!f || f.tab === null) continue;
    reached.add(f.tab);
    if (!f.outlined) unmarked.push(f.html);
  }
  const missed = await page.evaluate((reached) => [...document.querySelectorAll('[data-tab]')]
    .filter((el) => !reached.includes(el.getAttribute('data-tab'))).map((el) => el.outerHTML.slice(0, 100)), [...reached]);
  return { count, missed, unmarked };
}

test('every page can be used with the keyboard: Tab reaches each control, and shows where it is', async () => {
  assert.ok(key.id, 'needs the key of the tests before');
  const paths = ['/dashboard', '/dashboard/keys', '/dashboard/keys/new', `/dashboard/keys/${key.id}/limits`,
    `/dashboard/keys/${key.id}/revoke`, '/dashboard/usage?by=model', '/dashboard/limits', '/dashboard/alerts', '/dashboard/password'];
  for (const path of paths) {
    const { count, missed, unmarked } = await tabThrough(path);
    assert.ok(count >= 8, `${path}: only ${count} controls found`); // the navigation alone has more
    assert.deepEqual(missed, [], `${path}: Tab never reached these`);
    assert.deepEqual(unmarked, [], `${path}: focused without a visible outline`);
  }
  // The first Tab offers the skip link, and Enter on it moves focus to the page's content.
  await page.goto(url('/dashboard/keys'));
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent.trim()), 'Skip to content');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'main');
});

test('without JavaScript, on a phone: every page fits, and a key is created, shown once and revoked', async () => {
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: PHONE, colorScheme: 'light' });
  try {
    const p = await context.newPage();
    p.setDefaultTimeout(10_000);
    await p.goto(url('/dashboard/login'));
    await p.getByLabel('Email').fill(OWNER);
    await p.getByLabel('Password').fill(PASSWORD);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    for (const path of ['/dashboard', '/dashboard/keys', '/dashboard/keys/new', `/dashboard/keys/${key.id}/limits`,
      `/dashboard/keys/${key.id}/revoke`, '/dashboard/usage?by=key', '/dashboard/limits', '/dashboard/alerts', '/dashboard/password']) {
      await p.goto(url(path));
      const width = await p.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= PHONE.width, `${path} is ${width} px wide on a ${PHONE.width} px phone`);
    }

    const name = 'Made without JavaScript';
    await p.goto(url('/dashboard/keys/new'));
    await p.getByLabel('Name', { exact: true }).fill(name);
    await p.getByRole('button', { name: 'Create key' }).click();
    await p.getByRole('heading', { level: 1, name: 'Your new API key' }).waitFor();
    const secret = await p.getByLabel(`API key “${name}”`).inputValue();
    assert.match(secret, /^sk-switchyard-[A-Za-z0-9]{32}$/);
    const reply = await api(secret).chat.completions.create({ model: 'mock-chat', messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(reply.object, 'chat.completion');

    await p.getByRole('link', { name: 'I have copied it: back to API keys' }).click();
    await p.getByRole('link', { name: `Revoke ${name}` }).click();
    await p.getByRole('button', { name: 'Revoke this key for good' }).click();
    await p.getByRole('status').filter({ hasText: 'The key was revoked.' }).waitFor();
    assert.ok(!(await p.content()).includes(secret), 'the keys list shows the secret');
    await assert.rejects(api(secret).models.list(), (err) => err.status === 401);
  } finally {
    await context.close();
  }
});

test('revoking the key through its confirmation page refuses it at once', async () => {
  assert.ok(key.secret, 'needs the key of the tests before');
  await navLink('API keys').click();
  await page.getByRole('link', { name: `Revoke ${KEY_NAME}` }).click();
  await heading().filter({ hasText: 'Revoke API key' }).waitFor();
  assert.equal(page.url(), url(`/dashboard/keys/${key.id}/revoke`));
  assert.match(await page.getByRole('main').innerText(), new RegExp(`${key.hint}\\) is permanent`));
  await shot(page, 'key-revoke');

  await page.getByRole('button', { name: 'Revoke this key for good' }).click();
  await page.getByRole('status').filter({ hasText: 'The key was revoked.' }).waitFor();
  assert.match((await cells(row(KEY_NAME)))[3], /^Revoked \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
  assert.equal(await page.getByRole('link', { name: `Revoke ${KEY_NAME}` }).count(), 0, 'no Revoke link on a revoked key');

  await assert.rejects(
    api(key.secret).chat.completions.create({ model: 'mock-chat', messages: [{ role: 'user', content: 'Still there?' }] }),
    (err) => {
      assert.ok(err instanceof OpenAI.AuthenticationError, `got ${err}`);
      assert.equal(err.status, 401);
      assert.equal(err.code, 'invalid_api_key');
      return true;
    },
  );
});

test("another account's key answers 404 and shows nothing of it", async () => {
  const { other } = gw;
  const res = await page.goto(url(`/dashboard/keys/${other.id}/revoke`));
  assert.equal(res.status(), 404);
  assert.equal(await heading().innerText(), 'Not found');
  const html = await page.content();
  for (const [what, value] of Object.entries({ id: other.id, name: other.name, hint: other.hint, key: other.key })) {
    assert.ok(!html.includes(value), `the 404 page shows the other key's ${what}`);
  }
  assert.equal(await page.getByRole('button', { name: /Revoke/ }).count(), 0);
  await shot(page, 'not-found');
  // Looking was harmless: the other key still works.
  const models = await api(other.key).models.list();
  assert.ok(models.data.some((m) => m.id === 'mock-chat'));
});

test('after signing out, a dashboard page redirects to sign-in', async () => {
  await page.goto(url('/dashboard/keys'));
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(url('/dashboard/login?msg=signed-out'));
  assert.equal(await page.getByRole('status').innerText(), 'You are signed out.');
  await page.goto(url('/dashboard/usage'));
  await page.waitForURL(url('/dashboard/login?next=%2Fdashboard%2Fusage'));
  assert.equal(await heading().innerText(), 'Sign in');
  assert.equal(await page.getByRole('navigation', { name: 'Main' }).count(), 0, 'no account navigation when signed out');
});

// signIn signs in through the form as email, from a signed-out page.
async function signIn(email) {
  await page.goto(url('/dashboard/login'));
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(url('/dashboard'));
}

test('an owner has no operator pages: no links, and 403 by URL', async () => {
  await signIn(OWNER);
  assert.equal(await navLink('Accounts').count(), 0, 'no Accounts link for an owner');
  for (const path of ['/dashboard/admin/accounts', '/dashboard/admin/providers']) {
    const res = await page.goto(url(path));
    assert.equal(res.status(), 403, path);
    assert.equal(await heading().innerText(), 'Operators only');
  }
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(url('/dashboard/login?msg=signed-out'));
});

let created = { email: 'new-team@example.com', password: '' };

test('an operator creates an account; its generated password is shown once and signs in', async () => {
  await signIn(OPERATOR);
  await navLink('Accounts').click();
  await heading().filter({ hasText: 'Accounts' }).waitFor();
  for (const email of [OWNER, OPERATOR, 'other@example.com']) {
    assert.equal(await row(email).count(), 1, `${email} is listed`);
  }
  await page.getByLabel("Owner's email").fill(created.email);
  await shot(page, 'admin-accounts');
  await page.getByRole('button', { name: 'Create account' }).click();
  await heading().filter({ hasText: 'Account created' }).waitFor();
  created.password = await page.getByLabel(`Password of ${created.email}`).inputValue();
  assert.match(created.password, /^[A-Z2-7]{26}$/);
  await page.getByLabel(`Password of ${created.email}`).evaluate((input) => { input.value = '•'.repeat(26); });
  await shot(page, 'admin-account-created');
  await page.getByRole('link', { name: 'I have copied it: go to the account' }).click();
  await heading().filter({ hasText: created.email }).waitFor();
  assert.ok(!(await page.content()).includes(created.password), 'the password is shown again');

  // The new owner signs in with it, in a browser of their own.
  const theirs = await browser.newPage({ viewport: DESKTOP });
  try {
    await theirs.goto(url('/dashboard/login'));
    await theirs.getByLabel('Email').fill(created.email);
    await theirs.getByLabel('Password', { exact: true }).fill(created.password);
    await theirs.getByRole('button', { name: 'Sign in' }).click();
    await theirs.waitForURL(url('/dashboard'));
  } finally {
    await theirs.close();
  }
});

test("an operator sets an account's limits and models, and disabling it refuses its keys", async () => {
  const { other } = gw;
  await navLink('Accounts').click();
  await page.getByRole('link', { name: 'other@example.com' }).click();
  await heading().filter({ hasText: 'other@example.com' }).waitFor();
  assert.ok(await row(other.name).isVisible(), "the account's key is listed");
  await page.getByLabel('Requests per minute').fill('600');
  await page.getByLabel('Monthly budget (USD)').fill('250');
  await page.getByLabel('Models').fill('mock-*');
  await page.getByRole('button', { name: 'Save limits and models' }).click();
  await page.getByRole('status').filter({ hasText: "The account's limits and models were saved." }).waitFor();
  assert.equal(await page.getByLabel('Requests per minute').inputValue(), '600');
  assert.equal(await page.getByLabel('Models').inputValue(), 'mock-*');
  await shot(page, 'admin-account');

  // The new limit is the one the API enforces, from the next request on.
  const { response } = await api(other.key).chat.completions
    .create({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  assert.equal(response.headers.get('x-ratelimit-limit-requests'), '600');

  await page.getByRole('button', { name: 'Disable this account' }).click();
  await page.getByRole('status').filter({ hasText: 'The account was disabled' }).waitFor();
  await assert.rejects(api(other.key).models.list(), (err) => {
    assert.ok(err instanceof OpenAI.AuthenticationError, `got ${err}`);
    assert.equal(err.code, 'invalid_api_key');
    return true;
  });
  await page.getByRole('button', { name: 'Enable this account' }).click();
  await page.getByRole('status').filter({ hasText: 'The account was enabled again' }).waitFor();
  const models = await api(other.key).models.list();
  assert.deepEqual(models.data.map((m) => m.id).sort(), ['mock-chat', 'mock-embedding', 'mock-instruct'], 'the allow-list applies');
});

test('the providers page lists the mock provider and the reachable models', async () => {
  await navLink('Providers').click();
  await heading().filter({ hasText: 'Providers and models' }).waitFor();
  assert.deepEqual((await cells(row('mock'))).slice(0, 3), ['mock', 'built in (serve --dev)', 'none needed']);
  assert.deepEqual((await cells(row('mock-chat'))).slice(0, 4), ['', 'chat', 'available', 'mock']);
  assert.equal((await cells(row('gpt-5.4')))[2], 'unreachable');
  await shot(page, 'admin-providers');
});

test('the operator pages can be used with the keyboard too, and fit a phone', async () => {
  await page.goto(url('/dashboard/admin/accounts'));
  const accountPath = await page.getByRole('link', { name: OWNER, exact: true }).getAttribute('href');
  const paths = ['/dashboard/admin/accounts', accountPath, '/dashboard/admin/providers'];
  for (const path of paths) {
    const { count, missed, unmarked } = await tabThrough(path);
    assert.ok(count >= 8, `${path}: only ${count} controls found`);
    assert.deepEqual(missed, [], `${path}: Tab never reached these`);
    assert.deepEqual(unmarked, [], `${path}: focused without a visible outline`);
  }
  await page.setViewportSize(PHONE);
  try {
    for (const path of paths) {
      await page.goto(url(path));
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= PHONE.width, `${path} is ${width} px wide on a ${PHONE.width} px phone`);
    }
  } finally {
    await page.setViewportSize(DESKTOP);
  }
});
