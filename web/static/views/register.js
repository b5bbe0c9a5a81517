// "/register": a new account, in the mode the board is in (docs/API.md "Registration"): the
// question to answer in approval mode, the invite (prefilled from /register#<token>), proof of
// work solved in the background when the board asks for it.
import * as api from '../api.js';
import { add, h } from '../dom.js';
import { maxApplicationLength, minApplicationLength } from '../limits.js';
import { passwordRule, usernameRule } from '../rules.js';
import { busyText, isBusy, retryWhenBusy } from '../busy-retry.js';
import { solveChallenge } from '../pow.js';
import { withNext } from '../next-path.js';
import { navigate, refresh } from '../router.js';
import { refreshMe } from '../session.js';
import { announce } from '../status.js';
import { field, onSubmit } from '../components/form.js';
import { authForm, logIn, nextPath } from './auth.js';

/** @import { ViewContext } from '../router.js' */

let inviteToken = '';
let watchingFragment = false;

/**
 * An invite link pasted into the address bar while /register is open changes only the fragment:
 * the browser loads no page, so the view is drawn again to take the invite. Listening starts with
 * the first /register view (importing this module listens to nothing).
 */
function takePastedInvites() {
  if (watchingFragment) return;
  watchingFragment = true;
  window.addEventListener('hashchange', () => {
    if (location.pathname === '/register' && location.hash.length > 1) refresh();
  });
}

/**
 * The refusals a registration answers before it looks at the challenge (docs/API.md "Registering
 * in each mode"; a rate limit comes before the handler): the challenge sent stays unused.
 */
const challengeUnspent = new Set([
  'rate.limited',
  'invite.invalid',
  'auth.registration_closed',
  'auth.invite_required',
  'auth.invalid',
]);

/** The answer's length (docs/API.md "Registration"). */
const applicationRule = `${minApplicationLength} bis ${maxApplicationLength} Zeichen. Die Moderation liest die Antwort und schaltet dein Konto frei.`;

/**
 * @param {HTMLElement} root
 * @param {ViewContext} ctx
 */
export async function registerView(root, { query }) {
  const next = nextPath(query);
  add(root, h('h1', {}, 'Registrieren'));
  // The invite arrives in the fragment, never in a server's log; out of the address bar at once
  // (the query, ?weiter=, stays).
  takePastedInvites();
  if (location.hash.length > 1) {
    inviteToken = location.hash.slice(1);
    history.replaceState(null, '', location.pathname + location.search);
  }
  /** @type {Api.RegistrationInfo} */
  const door = await api.get('/api/auth/registration');
  if (door.mode === 'closed') {
    add(
      root,
      h('p', { class: 'note' }, 'Die Registrierung ist zurzeit geschlossen. Neue Konten legt die Administration an.'),
    );
    return 'Registrieren';
  }
  const fields = {
    user: field({ label: 'Benutzername', name: 'user', autocomplete: 'username', required: true, hint: usernameRule }),
    pass1: field({
      label: 'Passwort',
      name: 'pass1',
      type: 'password',
      autocomplete: 'new-password',
      required: true,
      hint: passwordRule,
    }),
    pass2: field({
      label: 'Passwort wiederholen',
      name: 'pass2',
      type: 'password',
      autocomplete: 'new-password',
      required: true,
    }),
    ...(door.mode === 'open' && !inviteToken
      ? {}
      : {
          invite: field({
            label: door.mode === 'invite' ? 'Einladung' : 'Einladung (falls du eine hast)',
            name: 'invite',
            value: inviteToken,
            required: door.mode === 'invite',
            hint: 'Der Teil nach # im Einladungslink.',
          }),
        }),
    ...(door.mode === 'approval'
      ? {
          application: field({
            label: door.question,
            name: 'application',
            tag: 'textarea',
            rows: 4,
            maxlength: maxApplicationLength,
            hint: applicationRule,
          }),
        }
      : {}),
  };
  const button = h('button', { type: 'submit', class: 'primary' }, 'Konto anlegen');
  const { form, message, status } = authForm(fields, button);
  // While a wait for the next try counts down, the next challenge's progress stays quiet.
  let counting = false;
  /** @param {number} f */
  const showProgress = (f) => {
    if (!counting)
      status.textContent = f < 1 ? `Rechenaufgabe gegen Bots: ${Math.round(f * 100)} %` : 'Rechenaufgabe gelöst.';
  };
  // The proof of work starts with the page, so it is mostly done by the time the form is.
  /** @type {Promise<string> | undefined} */
  let work;
  const startWork = () => {
    work = solveChallenge(showProgress);
    work.catch(() => {}); // a failure shows when the form takes the result
    return work;
  };
  if (door.pow) startWork();
  /**
   * One try. A challenge is good for one request: the server spends it when it checks it, after the
   * invite, the door and the fields (docs/API.md "Registering in each mode"), so a refusal from
   * before that keeps the solved one for the next try and any later answer needs a new one. One
   * solved long ago may have expired meanwhile (pow.invalid): the try solves a fresh one and sends
   * again. After a busy answer the next try's challenge solves during the wait.
   * @param {Record<string, string>} body
   */
  const register = async (body) => {
    if (!door.pow) return api.post('/api/auth/newuser', body);
    const solved = work ?? startWork();
    work = undefined;
    try {
      return await api.post('/api/auth/newuser', { ...body, altcha: await solved });
    } catch (err) {
      if (!(err instanceof api.ApiError)) throw err;
      if (err.code === 'pow.invalid')
        return api.post('/api/auth/newuser', { ...body, altcha: await solveChallenge(showProgress) });
      if (challengeUnspent.has(err.code)) work = solved;
      else if (isBusy(err)) startWork();
      throw err;
    }
  };
  onSubmit(
    form,
    button,
    fields,
    message,
    async () => {
      const user = fields.user.input.value;
      const pass = fields.pass1.input.value;
      /** @type {Record<string, string>} */
      const body = { user, pass1: pass, pass2: fields.pass2.input.value };
      if (fields.invite?.input.value) body.invite = fields.invite.input.value.trim();
      if (fields.application) body.application = fields.application.input.value;
      /** @type {{ username: string, status?: string }} */
      let created;
      try {
        created = await retryWhenBusy(
          () => register(body),
          (left) => {
            counting = left > 0;
            status.textContent = busyText(left);
          },
        );
      } finally {
        counting = false;
        status.textContent = '';
      }
      inviteToken = '';
      if (created.status === 'pending') {
        form.replaceWith(
          h(
            'p',
            { class: 'note', role: 'status' },
            `Danke, ${created.username}! Dein Antrag ist eingegangen. Sobald die Moderation ihn freigibt, kannst du dich anmelden.`,
          ),
        );
        return;
      }
      // Registration does not log in (docs/API.md "POST /api/auth/newuser"); the page does it next with the default duration.
      try {
        await logIn({ user: created.username, pass }, status);
      } catch {
        navigate(withNext('/login', next));
        announce('Dein Konto ist angelegt. Bitte melde dich an.');
        return;
      }
      await refreshMe();
      navigate(next);
      announce(`Willkommen, ${created.username}! Dein Konto ist angelegt.`);
    },
    { 'user.name_taken': 'user', 'invite.invalid': 'invite', 'auth.invite_required': 'invite' },
  );
  add(root, form, h('p', {}, 'Schon ein Konto? ', h('a', { href: withNext('/login', next) }, 'Anmelden')));
  return 'Registrieren';
}
