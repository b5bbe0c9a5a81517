import type { DocumentLoader } from '@fedify/fedify';
import { Document, Image, Link, type Actor, type Object as ApObject } from '@fedify/fedify/vocab';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import type { Log } from '../log.ts';
import { removeMedia } from '../media/files.ts';
import type { Images } from '../media/images.ts';
import { storeImage, type StoredImageKind } from '../media/stored-images.ts';
import type { PreviewClient } from '../outgoing/client.ts';
import { acceptedTypes, imageAccept } from '../preview/fetch.ts';
import { remoteAuthorUid } from './remote-entries.ts';

/**
 * The images of remote posts and authors (docs/API.md "Remote entries"): a post's first image and
 * an author's icon are fetched once, through the board's guarded client (its address checks, size
 * and time bounds), and kept as local files exactly as an upload is kept (lib/media/stored-images.ts).
 * Why: a page of the board makes browsers load nothing from other servers, so a remote image is
 * shown only as the board's own copy. A fetch that fails or an image the upload rules refuse leaves
 * the entry (or the author) without one; the text still comes in.
 */

export interface RemoteMediaDeps {
  config: Pick<Config, 'mediaDir' | 'maxUpload'>;
  client: PreviewClient;
  images: Pick<Images, StoredImageKind>;
  log: Log;
}

export interface ObjectLoaders {
  documentLoader: DocumentLoader;
  contextLoader: DocumentLoader;
}

const readOptions = (loaders: ObjectLoaders) => ({
  documentLoader: loaders.documentLoader,
  contextLoader: loaders.contextLoader,
  suppressError: true,
});

const maxAttachmentsRead = 8;

const httpUrl = (url: URL | null | undefined) =>
  url && (url.protocol === 'https:' || url.protocol === 'http:') ? url : undefined;

const isImageType = (mediaType: string | null) => mediaType?.startsWith('image/') ?? false;

const documentUrl = (document: Document) => httpUrl(document.url instanceof Link ? document.url.href : document.url);

/**
 * A post's image: its first image attachment (a `Document` with an image type, an `Image`, a
 * `Link` with an image type; of the first maxAttachmentsRead), else its `image` (Lemmy's `Page`).
 * readOptions names the loaders one by one: a context's are getters, which a spread would lose.
 */
export async function postImageUrl(post: ApObject, loaders: ObjectLoaders): Promise<URL | undefined> {
  const options = readOptions(loaders);
  let read = 0;
  for await (const item of post.getAttachments(options)) {
    if (++read > maxAttachmentsRead) break;
    if (item instanceof Link && isImageType(item.mediaType) && httpUrl(item.href)) return item.href!;
    if (item instanceof Document && (item instanceof Image || isImageType(item.mediaType))) {
      const url = documentUrl(item);
      if (url) return url;
    }
  }
  const image = await post.getImage(options);
  return image ? documentUrl(image) : undefined;
}

/** Fetches an image another server names, once, and keeps it as an upload of `kind` is kept; '' when it cannot (logged). */
export async function fetchRemoteImage(deps: RemoteMediaDeps, url: URL, kind: StoredImageKind): Promise<string> {
  try {
    const answer = await deps.client.get(url, {
      accept: imageAccept,
      type: acceptedTypes.image,
      maxBytes: deps.config.maxUpload,
      overflow: 'fail',
    });
    return await storeImage(deps.config, deps.images, kind, answer.body);
  } catch (err) {
    deps.log(`federation: image ${url.href} not taken: ${(err as Error).message}`);
    return '';
  }
}

/**
 * The users row of a remote author (lib/federation/remote-entries.ts remoteAuthorUid); the first
 * time the board keeps the author, its actor's `icon` becomes its avatar (cropped as an uploaded
 * avatar is), once; written only while the row has none, so two first activities keep one file.
 */
export async function remoteAuthorWithAvatar(
  deps: RemoteMediaDeps & { db: Db },
  actor: Actor,
  loaders: ObjectLoaders,
  now: number,
): Promise<number> {
  const { db } = deps;
  const known = db.one('SELECT 1 FROM remote_actors WHERE id = ? AND uid IS NOT NULL', actor.id!.href);
  const uid = remoteAuthorUid(db, actor, now);
  if (known) return uid;
  const icon = await actor.getIcon(readOptions(loaders));
  const url = icon ? documentUrl(icon) : undefined;
  const avatar = url ? await fetchRemoteImage(deps, url, 'avatar') : '';
  if (avatar && db.run("UPDATE users SET avatar = ? WHERE uid = ? AND avatar = ''", avatar, uid).changes === 0)
    await removeMedia(deps.config, [avatar], deps.log);
  return uid;
}
