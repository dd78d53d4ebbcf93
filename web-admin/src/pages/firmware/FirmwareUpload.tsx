import { useRef, useState, type FormEvent } from 'react';
import { useApiMutation } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import {
  configResetLabel,
  fitLabel,
  formatBytes,
  refusalAdvice,
  refusalCodeOf,
  releaseLabel,
} from './firmware-format.js';
import { uploadImage, type UploadProgress } from './upload-image.js';

/**
 * Upload of a sysupgrade image: the file goes as the raw body, its progress shown; the
 * controller reads its metadata and answers with the image and its fit, or refuses it (422)
 * naming why, which is shown with what to do about it.
 */
export function FirmwareUpload() {
  const { auth } = useSignedIn();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const upload = useApiMutation((chosen: File) => uploadImage(chosen, auth, setProgress), {
    invalidates: [queryKeys.firmware],
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!file) return;
    setProgress({ loaded: 0, total: file.size });
    upload.run(file, { onSettled: () => setProgress(null) });
  };
  const refused = upload.failure ? refusalCodeOf(upload.failure) : null;
  const advice = refusalAdvice(refused);
  const done = upload.data && !upload.pending ? upload.data : null;

  return (
    <form className="wf-panel wf-form wf-upload" onSubmit={submit} aria-labelledby="upload-title">
      <h2 id="upload-title">Upload an image</h2>
      <p className="wf-muted">
        An OpenWrt sysupgrade image (…-squashfs-sysupgrade.bin). Its metadata says which boards it is for; the
        controller checks it against every router of the fleet.
      </p>
      <div className="wf-inline-fields wf-upload__row">
        <div className="wf-field">
          <label htmlFor="firmware-file">Image file</label>
          <input
            ref={input}
            id="firmware-file"
            type="file"
            onChange={(e) => {
              setFile(e.target.files?.[0] ?? null);
              upload.reset();
            }}
          />
        </div>
        <button type="submit" className="wf-button wf-button--primary" disabled={!file || upload.pending}>
          Upload
        </button>
      </div>
      {progress ? (
        <div className="wf-upload__progress" role="status">
          <progress max={progress.total || 1} value={progress.loaded} aria-label="Upload progress" /> Uploading{' '}
          {file?.name}: {formatBytes(progress.loaded)} of {formatBytes(progress.total)}
        </div>
      ) : null}
      {done ? (
        <p className="wf-notice" role="status">
          {done.created ? 'Uploaded' : 'Already stored:'} {done.image.fileName}, OpenWrt{' '}
          {releaseLabel(done.image.release, done.image.revision)}: {fitLabel(done.image.fit)}
          {configResetLabel(done.image.fit) ? ` (${configResetLabel(done.image.fit)})` : ''}.
        </p>
      ) : null}
      {upload.failure ? (
        <div className="wf-upload__refused">
          {refused ? (
            <p className="wf-upload__refused-title">
              <strong>The controller refused {file?.name ?? 'the file'}.</strong> {advice}
            </p>
          ) : null}
          <ErrorNotice failure={upload.failure} />
        </div>
      ) : null}
    </form>
  );
}
