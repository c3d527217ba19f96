// Writes and reads a table through dynamodb-onetable itself, so that
// locktable's tests check what the library really writes and reads back.
//
// Usage: node onetable.mjs COMMAND [ARG]
//   plant         create the table and plant the fixture (see below)
//   dump          print every item, raw, as DynamoDB JSON, one per line
//   get ID        print User.get({id: ID}) as JSON ("null" when not found)
//   create JSON   User.create(JSON); exit 3 when a unique value is taken
//   remove ID     User.remove({id: ID}) through the library
// MODEL=Member makes get, create and remove use Member, whose email is
// unique per org (a unique scope).
//
// Environment: LOCKTABLE_TEST_ENDPOINT (dynoxide), TABLE (default
// onetable), ONETABLE_NODE_DIR (where `make onetable` installed it).
import { open, dump, main } from './fixture.mjs'

const fx = open('onetable.mjs', 'ONETABLE_NODE_DIR', 'onetable')
const { require, client, name } = fx
const { Table } = require('dynamodb-onetable')
const { PutItemCommand, UpdateItemCommand } = fx.ddb

// The application's schema: User keeps email and username unique; Post
// (another model) keeps its slug unique; Guest shares User's key template
// and has an email that is not unique.
function schema(unique) {
    return {
        format: 'onetable:1.1.0',
        version: '0.0.1',
        indexes: { primary: { hash: 'pk', sort: 'sk' } },
        models: {
            User: {
                pk: { type: String, value: 'user#${id}' },
                sk: { type: String, value: 'user#' },
                id: { type: String, required: true },
                email: { type: String, unique, required: true },
                username: { type: String, unique },
            },
            Guest: {
                pk: { type: String, value: 'user#${id}' },
                sk: { type: String, value: 'user#' },
                id: { type: String, required: true },
                email: { type: String },
            },
            Member: {
                pk: { type: String, value: 'member#${id}' },
                sk: { type: String, value: 'member#' },
                id: { type: String, required: true },
                org: { type: String, required: true },
                email: { type: String, unique, scope: '${org}' },
            },
            Post: {
                pk: { type: String, value: 'post#${id}' },
                sk: { type: String, value: 'post#' },
                id: { type: String, required: true },
                slug: { type: String, unique: true },
            },
        },
        params: { timestamps: false },
    }
}

function table(unique = true) {
    return new Table({ name, client, schema: schema(unique), partial: false })
}

async function plant() {
    const t = table()
    await t.createTable()
    const User = t.getModel('User')
    // Healthy creates.
    await User.create({ id: 'ada', email: 'ada@lovelace.io', username: 'ada' })
    await User.create({ id: 'bob', email: 'bob@example.com', username: 'bob' })
    await User.create({ id: 'carol', email: 'carol@example.com' })
    await t.getModel('Post').create({ id: 'p1', slug: 'hello-world' })
    await t.getModel('Guest').create({ id: 'guest1', email: 'ada@lovelace.io' })
    // Member's email is unique per org: the same email in two orgs is fine.
    const Member = t.getModel('Member')
    await Member.create({ id: 'm1', org: 'acme', email: 'ada@lovelace.io' })
    await Member.create({ id: 'm2', org: 'globex', email: 'ada@lovelace.io' })
    await Member.create({ id: 'm3', org: 'globex', email: 'bob@example.com' })
    // ... and a raw put of a second acme member with ada's email is a
    // duplicate_value within acme.
    await client.send(new PutItemCommand({
        TableName: name,
        Item: { pk: { S: 'member#m4' }, sk: { S: 'member#' }, _type: { S: 'Member' }, id: { S: 'm4' }, org: { S: 'acme' }, email: { S: 'ada@lovelace.io' } },
    }))
    // orphan_lock: a service whose schema lacks `unique` removes bob; his
    // unique items stay behind.
    await table(false).getModel('User').remove({ id: 'bob' })
    // missing_lock, by the library itself: a remove of a user that does
    // not exist, given carol's email, deletes her email's unique item.
    await User.remove({ id: 'ghost', email: 'carol@example.com' }, { exists: null })
    // duplicate_value: a raw put of a User bypasses uniqueness.
    await client.send(new PutItemCommand({
        TableName: name,
        Item: { pk: { S: 'user#eve' }, sk: { S: 'user#' }, _type: { S: 'User' }, id: { S: 'eve' }, email: { S: 'ada@lovelace.io' } },
    }))
    // missing_lock: an update outside the library gives carol a username.
    await client.send(new UpdateItemCommand({
        TableName: name,
        Key: { pk: { S: 'user#carol' }, sk: { S: 'user#' } },
        UpdateExpression: 'SET username = :u',
        ExpressionAttributeValues: { ':u': { S: 'carol' } },
    }))
}

const model = () => table().getModel(process.env.MODEL || 'User')
await main('onetable.mjs', {
    plant,
    dump: () => dump(fx),
    get: async (id) => console.log(JSON.stringify((await model().get({ id })) ?? null)),
    create: async (json) => console.log(JSON.stringify(await model().create(JSON.parse(json)))),
    remove: (id) => model().remove({ id }),
}, (err) => err.code === 'UniqueError')
