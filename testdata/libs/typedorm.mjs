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
import { createRequire } from 'node:module'
import path from 'node:path'

const dir = process.env.TYPEDORM_NODE_DIR
if (!dir) {
    console.error('typedorm.mjs: TYPEDORM_NODE_DIR is not set (make typedorm)')
    process.exit(2)
}
const require = createRequire(path.join(dir, 'node_modules') + '/')
require('reflect-metadata')
const { Table, Entity, Attribute } = require('@typedorm/common')
const { createConnection, getEntityManager } = require('@typedorm/core')
const { DocumentClientV3 } = require('@typedorm/document-client')
const { DynamoDBClient, ScanCommand, PutItemCommand, UpdateItemCommand, DeleteItemCommand, CreateTableCommand } =
    require('@aws-sdk/client-dynamodb')

const name = process.env.TABLE || 'typedorm'
const client = new DynamoDBClient({
    endpoint: process.env.LOCKTABLE_TEST_ENDPOINT,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
})

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

async function dump() {
    let start
    do {
        const out = await client.send(new ScanCommand({ TableName: name, ExclusiveStartKey: start }))
        for (const it of out.Items) console.log(JSON.stringify(it))
        start = out.LastEvaluatedKey
    } while (start)
}

const [cmd, arg] = process.argv.slice(2)
try {
    switch (cmd) {
        case 'plant':
            await plant()
            break
        case 'dump':
            await dump()
            break
        case 'get':
            console.log(JSON.stringify((await em.findOne(User, { id: arg })) ?? null))
            break
        case 'create':
            console.log(JSON.stringify(await em.create(user(JSON.parse(arg)))))
            break
        case 'remove':
            await em.delete(User, { id: arg })
            break
        default:
            console.error('usage: typedorm.mjs plant|dump|get ID|create JSON|remove ID')
            process.exit(2)
    }
} catch (err) {
    console.error(`typedorm.mjs ${cmd}: ${err.name} ${err.message}`)
    // A taken unique value cancels the create's transaction.
    const taken = /ConditionalCheckFailed|TransactionCancell?ed/i.test(`${err.name} ${err.message}`)
    process.exit(taken ? 3 : 1)
}
