package uitest

import tea "charm.land/bubbletea/v2"

// Drive runs a model's update loop as the program does, without a
// terminal: each command's message is handed to update, batches taken
// apart, until nothing more is asked. Commands run one at a time, in
// order.
func Drive[M any](m M, update func(M, tea.Msg) (M, tea.Cmd), cmds ...tea.Cmd) M {
	queue := cmds
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case nil:
		default:
			var next tea.Cmd
			m, next = update(m, msg)
			queue = append(queue, next)
		}
	}
	return m
}
