// The page's one script (web/index.html): it starts the front end. Every other module only
// exports, so importing one (a test, another module) draws and listens to nothing.
import { start } from './app.js';

start();
