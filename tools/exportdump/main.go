// Command exportdump writes a table as a full DynamoDB export
// (DYNAMODB_JSON, the layout ExportTableToPointInTime writes) into a
// directory, from one scan of the table. bench/paths uses it to give
// `check --export` and `locktable sql` the very items the live table
// holds, so that every path is measured on the same data. DynamoDB's own
// export costs no read capacity; this scan does, so it is a benchmark
// tool, not a way to export a production table.
//
//	go run ./tools/exportdump -endpoint-url URL -table T -dir DIR [-files 4]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/export"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

func main() {
	endpoint := flag.String("endpoint-url", "", "the DynamoDB endpoint")
	table := flag.String("table", "", "the table to export")
	dir := flag.String("dir", "", "where to write the export")
	files := flag.Int("files", 4, "data files to spread the items over")
	flag.Parse()
	if *table == "" || *dir == "" {
		fmt.Fprintln(os.Stderr, "usage: exportdump -endpoint-url URL -table T -dir DIR [-files N]")
		os.Exit(2)
	}
	if err := run(*endpoint, *table, *dir, *files, clock.System()); err != nil {
		fmt.Fprintln(os.Stderr, "exportdump:", err)
		os.Exit(1)
	}
}

func run(endpoint, table, dir string, files int, clk clock.Clock) error {
	ctx := context.Background()
	client, _, err := dynamo.NewClient(ctx, dynamo.ClientOptions{EndpointURL: endpoint})
	if err != nil {
		return err
	}
	var items []model.Item
	p := dynamodb.NewScanPaginator(client, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, av := range out.Items {
			items = append(items, dynamo.ItemFromSDK(av))
		}
	}
	at, err := export.Write(dir, export.Options{Table: table, Files: files, ExportTime: clk.Now()}, items)
	if err != nil {
		return err
	}
	fmt.Println(at)
	return nil
}
