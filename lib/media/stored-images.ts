import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import { uploadLimitMessages } from '../messages.ts';
import { saveMedia } from './files.ts';
import type { Images } from './images.ts';

/** What an image becomes: an entry's image (media/e/) or an avatar (media/a/). */
export type StoredImageKind = 'entry' | 'avatar';

const folders = { entry: 'e', avatar: 'a' } as const;

/**
 * Stores an image as an upload is stored (docs/API.md "POST /api/entry/create", "POST
 * /api/user/avatar"): at most BOARD_MAX_UPLOAD bytes, the formats and pixel caps of its kind, sharp's
 * pipeline, a new file under media/. Every image the board keeps, uploaded or fetched from another
 * server, comes through here, so no path keeps a file the upload rules would refuse. Returns the
 * path under media/; throws 400 upload.bad_type or 413 upload.too_large.
 */
export async function storeImage(
  config: Pick<Config, 'mediaDir' | 'maxUpload'>,
  images: Pick<Images, StoredImageKind>,
  kind: StoredImageKind,
  data: Buffer,
): Promise<string> {
  if (data.length > config.maxUpload)
    throw new ApiError(413, 'upload.too_large', { message: uploadLimitMessages.size(config.maxUpload) });
  const image = await images[kind](data);
  return saveMedia(config, folders[kind], image.extension, image.data);
}
