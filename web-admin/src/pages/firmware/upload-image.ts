import { failureFrom, networkFailure } from '../../api/api-error.js';
import type { ApiPaths, ClientAuth } from '../../api/client.js';

export type FirmwareImage =
  ApiPaths['/v1/firmware/images/{sha256}']['get']['responses'][200]['content']['application/json'];

export interface UploadProgress {
  loaded: number;
  total: number;
}

/**
 * POST /v1/firmware/images with the file as the raw body, through XMLHttpRequest rather than
 * the typed client: fetch reports no upload progress, and an image is megabytes. It sends what
 * the client sends (the bearer token or the session's CSRF token) and turns a refusal into the
 * same ApiFailure, so the page shows it with ErrorNotice like every other failure.
 */
export function uploadImage(
  file: File,
  auth: ClientAuth,
  onProgress: (progress: UploadProgress) => void,
): Promise<{ image: FirmwareImage; created: boolean }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/v1/firmware/images?fileName=${encodeURIComponent(file.name)}`);
    xhr.withCredentials = true;
    xhr.responseType = 'text';
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    const bearer = auth.bearerToken();
    if (bearer) xhr.setRequestHeader('authorization', `Bearer ${bearer}`);
    const csrf = auth.csrfToken();
    if (csrf) xhr.setRequestHeader('x-csrf-token', csrf);
    xhr.upload.onprogress = (event) =>
      onProgress({ loaded: event.loaded, total: event.lengthComputable ? event.total : file.size });
    xhr.onerror = () => reject(networkFailure(new Error('the upload did not reach the controller')));
    xhr.onabort = () => reject(networkFailure(new Error('the upload was stopped')));
    xhr.onload = () => {
      let body: unknown;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        body = xhr.responseText;
      }
      if (xhr.status === 200 || xhr.status === 201) {
        resolve({ image: body as FirmwareImage, created: xhr.status === 201 });
        return;
      }
      if (xhr.status === 401) auth.onUnauthenticated();
      reject(failureFrom(xhr.status, xhr.statusText, body));
    };
    xhr.send(file);
  });
}
