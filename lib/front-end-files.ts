import { writeFileSync } from 'node:fs';
import { frontEndTypes, frontEndTypesFile } from './openapi/front-end-types.ts';
import { frontEndLimitsFile, frontEndLimitsModule } from './pages/front-end-limits.ts';
import { frontEndPages, frontEndPagesFile } from './pages/front-end-pages.ts';
import { routes } from './routes.ts';

/**
 * `make front-end-files`: writes the front end's modules that are made from the server's facts
 * (the page list from the route table, the limits, the API's types), so the browser never keeps a
 * copy by hand; the unit tests fail while one of them is out of date.
 */
writeFileSync(frontEndPagesFile, frontEndPages(routes));
writeFileSync(frontEndLimitsFile, frontEndLimitsModule());
writeFileSync(frontEndTypesFile, frontEndTypes());
