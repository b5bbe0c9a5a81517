/** The worker's number (1..N) the primary gives each worker; a replacement takes over the number of the one it replaces. */
export const workerIndexVariable = 'BOARD_WORKER_INDEX';
