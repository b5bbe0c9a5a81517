// Written by lib/pages/front-end-pages.ts from the route table (lib/routes.ts); do not edit.

/**
 * A page of the front end: a path of the route table whose answer is the page shell (it is the key of
 * its view in app.js).
 * @typedef {'/' | '/e/:pid' | '/u/:username' | '/reset' | '/login' | '/register' | '/recover' | '/settings' | '/stats' | '/suche' | '/mod' | '/modlog' | '/benachrichtigungen'} PagePath
 */

/**
 * The pages, each with the pattern of the addresses the server answers with it: one group per path
 * parameter, narrowed as the server narrows it (else its 404 page).
 * @type {readonly { path: PagePath, pattern: RegExp }[]}
 */
export const pages = [
  { path: '/', pattern: /^\/$/ },
  { path: '/e/:pid', pattern: /^\/e\/(\d{1,15})$/ },
  { path: '/u/:username', pattern: /^\/u\/([^/]+)$/ },
  { path: '/reset', pattern: /^\/reset$/ },
  { path: '/login', pattern: /^\/login$/ },
  { path: '/register', pattern: /^\/register$/ },
  { path: '/recover', pattern: /^\/recover$/ },
  { path: '/settings', pattern: /^\/settings$/ },
  { path: '/stats', pattern: /^\/stats$/ },
  { path: '/suche', pattern: /^\/suche$/ },
  { path: '/mod', pattern: /^\/mod$/ },
  { path: '/modlog', pattern: /^\/modlog$/ },
  { path: '/benachrichtigungen', pattern: /^\/benachrichtigungen$/ },
];
