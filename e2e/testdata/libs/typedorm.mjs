// Writes and reads a table through @typedorm/core itself, so that
// locktable's tests check what the library really writes and reads back.
//
// Usage: node typedorm.mjs COMMAND [ARG]
//   plant         create the table and plant the fixture (see below)
//   dump          print every item, raw, as DynamoDB JSON, one per line
//   get ID        print findOne(User, {id: ID}) as JSON ("null" when not found)
//   create JSON   create a User from JSON; exit 3 when a unique value is taken
//   remove ID     delete(User, {id: ID}) through the library
//
// Environment: LOCKTABLE_TEST_ENDPOINT (dynoxide), TABLE (default
// typedorm), TYPEDORM_NODE_DIR (where `make typedorm` installed it).
// Decorators are applied by hand: this is plain JavaScript.
import { open, dump, main } from './fixture.mjs'

const fx = open('typedorm.mjs', 'TYPEDORM_NODE_DIR', 'typedorm')
const { require, client, name } = fx
require('reflect-metadata')
const { Table, Entity, Attribute } = require('@typedorm/common')
const { createConnection, getEntityManager } = require('@typedorm/core')
const { DocumentClientV3 } = require('@typedorm/document-client')
const { PutItemCommand, UpdateItemCommand, DeleteItemCommand, CreateTableCommand } = fx.ddb

function attribute(cls, prop, options) {
    Reflect.defineMetadata('design:type', String, cls.prototype, prop)
    Attribute(options)(cls.prototype, prop)
}

// The application's entities: User keeps email and username unique;
// Post, another entity, keeps its slug unique.
class User {}
attribute(User, 'id')
attribute(User, 'email', { unique: true })
attribute(User, 'username', { unique: true })
Entity({ name: 'user', primaryKey: { partitionKey: 'USER#{{id}}', sortKey: 'USER#{{id}}' } })(User)

class Post {}
attribute(Post, 'id')
attribute(Post, 'slug', { unique: true })
Entity({ name: 'post', primaryKey: { partitionKey: 'POST#{{id}}', sortKey: 'POST#{{id}}' } })(Post)

createConnection({
    table: new Table({ name, partitionKey: 'PK', sortKey: 'SK' }),
    entities: [User, Post],
    documentClient: new DocumentClientV3(client),
})
const em = getEntityManager()

function user(props) {
    return Object.assign(new User(), props)
}

async function plant() {
    await client.send(new CreateTableCommand({
        TableName: name,
        KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }, { AttributeName: 'SK', KeyType: 'RANGE' }],
        AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }, { AttributeName: 'SK', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
    }))
    // Healthy creates.
    await em.create(user({ id: 'ada', email: 'ada@lovelace.io', username: 'ada' }))
    await em.create(user({ id: 'bob', email: 'bob@example.com', username: 'bob' }))
    await em.create(user({ id: 'carol', email: 'carol@example.com', username: 'carol' }))
    await em.create(Object.assign(new Post(), { id: 'p1', slug: 'hello-world' }))
    // orphan_lock: bob's item deleted outside the library; his unique
    // items stay behind.
    await client.send(new DeleteItemCommand({ TableName: name, Key: { PK: { S: 'USER#bob' }, SK: { S: 'USER#bob' } } }))
    // duplicate_value: a raw put of a user bypasses uniqueness.
    await client.send(new PutItemCommand({
        TableName: name,
        Item: { PK: { S: 'USER#eve' }, SK: { S: 'USER#eve' }, __en: { S: 'user' }, id: { S: 'eve' }, email: { S: 'ada@lovelace.io' } },
    }))
    // missing_lock: an update outside the library changes carol's email
    // (TypeDORM requires every unique attribute, so it is a change: her
    // old email's unique item is left an orphan_lock).
    await client.send(new UpdateItemCommand({
        TableName: name,
        Key: { PK: { S: 'USER#carol' }, SK: { S: 'USER#carol' } },
        UpdateExpression: 'SET email = :e',
        ExpressionAttributeValues: { ':e': { S: 'carol@new.example' } },
    }))
}


await main('typedorm.mjs', {
    plant,
    dump: () => dump(fx),
    get: async (id) => console.log(JSON.stringify((await em.findOne(User, { id })) ?? null)),
    create: async (json) => console.log(JSON.stringify(await em.create(user(JSON.parse(json))))),
    remove: (id) => em.delete(User, { id }),
}, (err) => /ConditionalCheckFailed|TransactionCancell?ed/i.test(`${err.name} ${err.message}`)) // a taken unique value cancels the create
