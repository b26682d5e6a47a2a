package example

func Greeting() string { return "hello" }
