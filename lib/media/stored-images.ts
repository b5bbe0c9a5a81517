import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import { uploadLimitMessages } from '../messages.ts';
import { saveMedia } from './files.ts';
import type { Images } from './images.ts';

export type StoredImageKind = 'entry' | 'avatar';

const folders = { entry: 'e', avatar: 'a' } as const;

/**
 * Stores an entry image or an avatar as an upload: BOARD_MAX_UPLOAD, the formats and pixel caps,
 * sharp, a new file under media/ (its path returned; 400 upload.bad_type, 413 upload.too_large).
 * Every kept image, uploaded or fetched from another server, comes through here.
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
