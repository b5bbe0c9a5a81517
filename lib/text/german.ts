/**
 * Times and numbers for German readers, in the board's zone (Europe/Berlin): the drawn pages'
 * and the readable export's. One home, the front end's web/static/format.js, since the pages'
 * markup is drawn by the browser too (web/static/markup/).
 */
export {
  boardDate as germanDate,
  boardDateTime as germanDateTime,
  isoTime,
  number as germanNumber,
} from '../../web/static/format.js';
