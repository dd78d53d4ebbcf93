import { useState } from 'react';
import { unwrap } from '../../api/client.js';
import { useApiMutation, useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { Link } from '../../app/navigation.js';
import type { PageProps } from '../../app/page-props.js';
import { useSignedIn } from '../../app/session.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Page } from '../../components/Page.js';
import { configResetLabel, fitLabel, formatBytes, releaseLabel } from './firmware-format.js';
import { FirmwareUpload } from './FirmwareUpload.js';
import { ImageDetail } from './ImageDetail.js';
import type { FirmwareImage } from './upload-image.js';
import '../profiles/panels.css';
import './firmware.css';

interface FitOptions {
  keepConfig: boolean;
  allowDowngrade: boolean;
}

function imageColumns(
  open: ReadonlySet<string>,
  toggle: (sha: string) => void,
  canWrite: boolean,
  remove: (image: FirmwareImage) => void,
): Column<FirmwareImage>[] {
  return [
    {
      id: 'image',
      header: 'Image',
      rowHeader: true,
      className: 'wf-images__name',
      sortValue: (i) => i.fileName,
      cell: (i) => (
        <button
          type="button"
          className="wf-button wf-button--link wf-image__name"
          aria-expanded={open.has(i.sha256)}
          aria-controls={`image-${i.sha256}`}
          onClick={() => toggle(i.sha256)}
        >
          {open.has(i.sha256) ? '▾' : '▸'} {i.fileName}
        </button>
      ),
    },
    {
      id: 'release',
      header: 'Release',
      sortValue: (i) => i.release,
      cell: (i) => (
        <>
          {i.release}
          <div className="wf-muted">{i.revision}</div>
        </>
      ),
    },
    { id: 'target', header: 'Target', sortValue: (i) => i.target ?? '', cell: (i) => i.target ?? '—' },
    { id: 'size', header: 'Size', sortValue: (i) => i.sizeBytes, cell: (i) => formatBytes(i.sizeBytes) },
    {
      id: 'signed',
      header: 'Signed',
      sortValue: (i) => (i.signed ? 1 : 0),
      cell: (i) => (i.signed ? 'yes' : 'no'),
    },
    {
      id: 'fit',
      header: 'Fit',
      className: 'wf-images__fit',
      sortValue: (i) => i.fit.fits,
      cell: (i) => (
        <>
          <span className={i.fit.fits > 0 ? 'wf-fit wf-fit--some' : 'wf-fit wf-fit--none'}>{fitLabel(i.fit)}</span>
          {configResetLabel(i.fit) ? <div className="wf-fit__reset">{configResetLabel(i.fit)}</div> : null}
        </>
      ),
    },
    {
      id: 'uploaded',
      header: 'Uploaded',
      sortValue: (i) => i.createdAt,
      cell: (i) => (
        <>
          {i.uploadedBy}
          <div className="wf-muted">{new Date(i.createdAt).toLocaleString()}</div>
        </>
      ),
    },
    ...(canWrite
      ? [
          {
            id: 'actions',
            header: 'Actions',
            cell: (i: FirmwareImage) => (
              <div className="wf-image__actions">
                <Link
                  className="wf-button wf-button--small wf-button--primary"
                  to={`/rollouts?new=1&image=${i.sha256}`}
                  aria-label={`Roll out ${i.fileName}`}
                >
                  Roll out
                </Link>
                <button
                  type="button"
                  className="wf-button wf-button--small wf-button--danger"
                  aria-label={`Remove ${i.fileName}`}
                  onClick={() => remove(i)}
                >
                  Remove
                </button>
              </div>
            ),
          },
        ]
      : []),
  ];
}

/**
 * Firmware: the sysupgrade images stored on the controller, newest first, each with how many
 * routers of the fleet it fits (judged as sysupgrade would, with the options chosen here) and
 * why the others do not; upload, remove, and roll one out.
 */
export default function FirmwarePage(_props: PageProps) {
  const { api, can } = useSignedIn();
  const [options, setOptions] = useState<FitOptions>({ keepConfig: true, allowDowngrade: false });
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const [removing, setRemoving] = useState<FirmwareImage | null>(null);
  const list = useApiQuery(
    queryKeys.firmwareImages(options),
    () => unwrap(api.GET('/v1/firmware/images', { params: { query: options } })),
    { keepPrevious: true },
  );
  const remove = useApiMutation(
    (sha256: string) => unwrap(api.DELETE('/v1/firmware/images/{sha256}', { params: { path: { sha256 } } })),
    { invalidates: [queryKeys.firmware] },
  );
  const toggle = (sha: string) =>
    setOpen((now) => {
      const next = new Set(now);
      if (next.has(sha)) next.delete(sha);
      else next.add(sha);
      return next;
    });
  const askRemove = (image: FirmwareImage) => {
    remove.reset();
    setRemoving(image);
  };

  return (
    <Page title="Firmware">
      {can('write') ? <FirmwareUpload /> : null}
      {removing ? (
        <ConfirmDialog
          title={`Remove ${removing.fileName}?`}
          confirmLabel="Remove image"
          danger
          busy={remove.pending}
          onConfirm={() => remove.run(removing.sha256, { onSuccess: () => setRemoving(null) })}
          onCancel={() => setRemoving(null)}
        >
          <p>
            The image (OpenWrt {releaseLabel(removing.release, removing.revision)}, {formatBytes(removing.sizeBytes)})
            is deleted from the controller. Routers already upgraded with it keep their firmware; finished rollouts keep
            its name. The controller refuses while a rollout that has not ended carries it.
          </p>
          {remove.failure ? <ErrorNotice failure={remove.failure} /> : null}
        </ConfirmDialog>
      ) : null}
      <section className="wf-panel" aria-labelledby="images-title">
        <h2 id="images-title">Images</h2>
        <fieldset className="wf-inline-fields wf-fit-options">
          <legend>Judge the fit</legend>
          <label className="wf-check">
            <input
              type="checkbox"
              checked={options.keepConfig}
              onChange={(e) => setOptions((o) => ({ ...o, keepConfig: e.target.checked }))}
            />
            keeping the configuration
          </label>
          <label className="wf-check">
            <input
              type="checkbox"
              checked={options.allowDowngrade}
              onChange={(e) => setOptions((o) => ({ ...o, allowDowngrade: e.target.checked }))}
            />
            allowing a downgrade
          </label>
        </fieldset>
        <DataTable
          rows={list.data?.items ?? []}
          columns={imageColumns(open, toggle, can('write'), askRemove)}
          rowKey={(i) => i.sha256}
          caption="Firmware images"
          detail={(i) => (open.has(i.sha256) ? { id: `image-${i.sha256}`, content: <ImageDetail image={i} /> } : null)}
          empty={<p className="wf-muted">No firmware image yet.</p>}
          failure={list.failure}
          onRetry={list.retry}
          loading={list.loading}
          loadingWhat="Loading firmware images"
        />
      </section>
    </Page>
  );
}
