import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PrismaClient } from '../../../../prisma/generated/client/client.js';
import { ChannelNameTaken, InvalidChannel, type ChannelStore } from '../../../alerts/channels/channel-store.js';
import { readDeliveryLog } from '../../../alerts/channels/delivery-log.js';
import { ChannelNotFound, type NotificationDelivery } from '../../../alerts/notification-delivery.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { auditContext } from '../../../http/request-context.js';
import { NoQuery } from '../../../http/shared-schemas.js';
import {
  ChannelView,
  CreateChannelBody,
  CreatedChannel,
  DeliveriesQuery,
  DeliveryLogView,
  NameParam,
  TestResultView,
} from './channel-schemas.js';

export interface ChannelsPluginOptions {
  channels: ChannelStore;
  notifications: NotificationDelivery;
  db: PrismaClient;
}

const refused = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema };
const notFound = (name: string) => new ApiError(404, 'not_found', `no channel ${name}`);

/**
 * Notification channels (webhook, Slack, e-mail): where alerts are sent. Reading them needs the
 * read scope (no view carries a secret); creating, removing and testing one needs admin, since a
 * channel decides where the fleet's alerts go.
 */
export const channelsPlugin: FastifyPluginAsyncTypebox<ChannelsPluginOptions> = async (
  app,
  { channels, notifications, db },
) => {
  app.get(
    '/v1/channels',
    {
      schema: {
        tags: ['alerts'],
        summary: 'Notification channels, by name',
        querystring: NoQuery,
        response: { 200: Type.Object({ items: Type.Array(ChannelView) }), ...refused },
      },
    },
    async () => ({ items: await channels.list() }),
  );

  app.post(
    '/v1/channels',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['alerts'],
        summary: "Create a channel; a webhook's signing secret is in this answer only",
        description:
          'Give the settings of exactly one kind: webhook { url }, slack { url } or email { host, port?, tls?, user?, ' +
          'password?, from, to }. Secrets (the signing secret, the Slack URL, the SMTP password) are sealed at rest ' +
          'and never returned afterwards.',
        body: CreateChannelBody,
        response: { 201: CreatedChannel, 409: errorBodySchema, ...refused },
      },
    },
    async (request, reply) => {
      try {
        const { channel, secret } = await channels.create(request.body, auditContext(request));
        return reply.status(201).send({ ...channel, ...(secret ? { secret } : {}) });
      } catch (err) {
        if (err instanceof InvalidChannel)
          throw new ApiError(
            400,
            'invalid_request',
            `invalid body parameter: ${err.path.replace(/^\//, '') || 'body'} ${err.message}`,
            [{ in: 'body', path: err.path, message: err.message }],
          );
        if (err instanceof ChannelNameTaken) throw new ApiError(409, 'channel_exists', err.message);
        throw err;
      }
    },
  );

  app.get(
    '/v1/channels/:name',
    {
      schema: {
        tags: ['alerts'],
        summary: 'A notification channel (never its secret)',
        params: NameParam,
        response: { 200: ChannelView, 404: errorBodySchema, ...refused },
      },
    },
    async (request) => (await channels.get(request.params.name)) ?? Promise.reject(notFound(request.params.name)),
  );

  app.delete(
    '/v1/channels/:name',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['alerts'],
        summary: 'Remove a channel; its notifications not yet sent fail, its name is free again',
        params: NameParam,
        response: { 204: Type.Null(), 404: errorBodySchema, ...refused },
      },
    },
    async (request, reply) => {
      if (!(await channels.remove(request.params.name, auditContext(request)))) throw notFound(request.params.name);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/v1/channels/:name/test',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['alerts'],
        summary: 'Send a test notification now and answer with the outcome (it is in the delivery log too)',
        params: NameParam,
        response: { 200: TestResultView, 404: errorBodySchema, ...refused },
      },
    },
    async (request) => {
      try {
        return await notifications.test(request.params.name, auditContext(request));
      } catch (err) {
        if (err instanceof ChannelNotFound) throw notFound(request.params.name);
        throw err;
      }
    },
  );

  app.get(
    '/v1/channels/:name/deliveries',
    {
      schema: {
        tags: ['alerts'],
        summary: "A channel's delivery log: its notifications, newest first, with every attempt",
        params: NameParam,
        querystring: DeliveriesQuery,
        response: { 200: DeliveryLogView, 404: errorBodySchema, ...refused },
      },
    },
    async (request) => {
      const channel = await channels.get(request.params.name);
      if (!channel) throw notFound(request.params.name);
      return { items: await readDeliveryLog(db, channel.id, request.query.limit) };
    },
  );
};
