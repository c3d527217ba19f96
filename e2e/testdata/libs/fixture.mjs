// What onetable.mjs and typedorm.mjs share: the library's own node_modules
// (installed by make onetable / make typedorm), a DynamoDB client on the
// test's dynoxide, the raw dump, and the command line.
import { createRequire } from 'node:module'
import path from 'node:path'

// open returns require() over the node_modules under $envDir, the SDK's
// DynamoDB module, a client on $LOCKTABLE_TEST_ENDPOINT and the table's
// name ($TABLE, default fallback).
export function open(script, envDir, fallback) {
    const dir = process.env[envDir]
    if (!dir) {
        console.error(`${script}: ${envDir} is not set (make ${fallback})`)
        process.exit(2)
    }
    const require = createRequire(path.join(dir, 'node_modules') + '/')
    const ddb = require('@aws-sdk/client-dynamodb')
    const client = new ddb.DynamoDBClient({
        endpoint: process.env.LOCKTABLE_TEST_ENDPOINT,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    })
    return { require, ddb, client, name: process.env.TABLE || fallback }
}

// dump prints every item of the table, raw, as DynamoDB JSON, one a line.
export async function dump({ ddb, client, name }) {
    let start
    do {
        const out = await client.send(new ddb.ScanCommand({ TableName: name, ExclusiveStartKey: start }))
        for (const it of out.Items) console.log(JSON.stringify(it))
        start = out.LastEvaluatedKey
    } while (start)
}

// main runs the command of argv (plant, dump, get ID, create JSON,
// remove ID) from commands; an error exits 3 when taken(err) says a
// unique value was taken, else 1.
export async function main(script, commands, taken) {
    const [cmd, arg] = process.argv.slice(2)
    if (!commands[cmd]) {
        console.error(`usage: ${script} ${Object.keys(commands).join('|')}`)
        process.exit(2)
    }
    try {
        await commands[cmd](arg)
    } catch (err) {
        console.error(`${script} ${cmd}: ${err.code || err.name || ''} ${err.message}`)
        process.exit(taken(err) ? 3 : 1)
    }
}
