/**
 * How long a test waits for something that is due (a server's start line, a row a job writes, a
 * page's state) before it calls it hung. A bound against hangs, never a claim about speed: a
 * passing wait returns as soon as the thing arrives, and a loaded CI machine can take many times
 * the usual few hundred milliseconds, so the bound is generous on purpose.
 */
export const hangBoundMs = 120_000;
