package example

import "fmt"

func ExampleGreeting() {
	fmt.Println(Greeting())
	// Output: hello, world
}
