// Writes and reads a table through ElectroDB itself, with the unique
// constraint its documentation builds (Transact Write, "Example - Unique
// Constraint"), so that locktable's tests check what the library really
// writes and reads back.
//
// Usage: node electrodb.mjs COMMAND [ARG]
//   plant         create the table and plant the fixture (see below)
//   bare          create the table with one agent and no constraint
//   dump          print every item, raw, as DynamoDB JSON, one per line
//   get JSON      print constraint.get({value, name, entity}) as JSON ("null" when not found)
//   agent JSON    print agent.get({designation, id}) as JSON ("null" when not found)
//   create JSON   the documented signup: the agent and its email's
//                 constraint in one transaction.write; exit 3 when the
//                 email is taken
//
// Environment: LOCKTABLE_TEST_ENDPOINT (dynoxide), TABLE (default
// electrodb), ELECTRODB_NODE_DIR (where `make electrodb` installed it).
import { open, dump, main } from './fixture.mjs'

const fx = open('electrodb.mjs', 'ELECTRODB_NODE_DIR', 'electrodb')
const { require, client, name: table } = fx
const { Entity, Service } = require('electrodb')
const { CreateTableCommand } = fx.ddb

const agent = new Entity({
    model: { entity: 'agent', version: '1', service: 'mi6' },
    attributes: {
        id: { type: 'string', required: true },
        designation: { type: 'string', required: true },
        email: { type: 'string', required: true },
        codename: { type: 'string' },
    },
    indexes: {
        primary: { pk: { field: 'pk', composite: ['designation'] }, sk: { field: 'sk', composite: ['id'] } },
    },
})

// The documentation's constraint entity, as it declares it.
const constraint = new Entity({
    model: { entity: 'constraint', version: '1', service: 'mi6' },
    attributes: {
        name: { type: 'string', required: true },
        value: { type: 'string', required: true },
        entity: { type: 'string', required: true },
    },
    indexes: {
        value: { pk: { field: 'pk', composite: ['value'] }, sk: { field: 'sk', composite: ['name', 'entity'] } },
        name: { index: 'gsi1pk-gsi1sk-index', pk: { field: 'gsi1pk', composite: ['name', 'entity'] }, sk: { field: 'gsi1sk', composite: ['value'] } },
    },
})

const mi6 = new Service({ agent, constraint }, { table, client })

// signup is the documentation's create: the agent and the constraint on
// its email in one transaction.write. ElectroDB answers a cancelled
// transaction with canceled: true, not an error.
async function signup(a) {
    const out = await mi6.transaction.write(({ agent, constraint }) => [
        agent.create(a).commit(),
        constraint.create({ name: 'email', value: a.email, entity: 'agent' }).commit(),
    ]).go()
    if (out.canceled) {
        const err = new Error(`cancelled: ${JSON.stringify(out.data)}`)
        err.name = 'TransactionCanceled'
        throw err
    }
    return out.data
}

async function createTable() {
    await client.send(new CreateTableCommand({
        TableName: table,
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
        AttributeDefinitions: ['pk', 'sk', 'gsi1pk', 'gsi1sk'].map((n) => ({ AttributeName: n, AttributeType: 'S' })),
        GlobalSecondaryIndexes: [{
            IndexName: 'gsi1pk-gsi1sk-index',
            KeySchema: [{ AttributeName: 'gsi1pk', KeyType: 'HASH' }, { AttributeName: 'gsi1sk', KeyType: 'RANGE' }],
            Projection: { ProjectionType: 'ALL' },
        }],
        BillingMode: 'PAY_PER_REQUEST',
    }))
}

// bare creates the table with one agent, created outside any
// transaction: no constraint item says how constraints are keyed yet.
async function bare() {
    await createTable()
    await agent.create({ designation: '00', id: 'a1', email: 'Agent1@mi6.uk' }).go()
}

async function plant() {
    await createTable()
    // Healthy signups; agents a1..a3 share one partition key.
    await signup({ designation: '00', id: 'a1', email: 'agent1@mi6.uk' })
    await signup({ designation: '00', id: 'a2', email: 'agent2@mi6.uk' })
    await signup({ designation: '00', id: 'a3', email: 'agent3@mi6.uk' })
    // A mixed-case email: the constraint's key is lower-cased, its value
    // is as given. Healthy.
    await signup({ designation: '007', id: 'bond', email: 'Bond@MI6.uk' })
    await signup({ designation: 'q', id: 'q', email: 'q@mi6.uk' })
    // orphan_lock: a delete that forgets the constraint.
    await agent.delete({ designation: '00', id: 'a2' }).go()
    // missing_lock: an agent created outside the transaction.
    await agent.create({ designation: '00', id: 'a4', email: 'Agent4@mi6.uk' }).go()
    // duplicate_value: a second agent with a taken email.
    await agent.create({ designation: '00', id: 'a5', email: 'agent1@mi6.uk' }).go()
    // A changed email: the old constraint is left (orphan_lock), the new
    // value has none (missing_lock).
    await agent.patch({ designation: 'q', id: 'q' }).set({ email: 'quartermaster@mi6.uk' }).go()
}

await main('electrodb.mjs', {
    plant,
    bare,
    dump: () => dump(fx),
    get: async (json) => console.log(JSON.stringify((await constraint.get(JSON.parse(json)).go()).data ?? null)),
    agent: async (json) => console.log(JSON.stringify((await agent.get(JSON.parse(json)).go()).data ?? null)),
    create: async (json) => console.log(JSON.stringify(await signup(JSON.parse(json)))),
}, (err) => /ConditionalCheckFailed|TransactionCancell?ed/i.test(`${err.name} ${err.message}`))
